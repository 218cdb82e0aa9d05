'use strict';
// The program test/t_anon_js.sh profiles with node --cpu-prof.  Its unnamed
// functions (the module's top level, a function expression, two arrow
// functions on one line) must stay apart in calltree, each named by where it
// starts, and its named functions keep their names.  Each function loops
// until its deadline itself, so that it runs long enough to be sampled and
// is too big to be inlined into its caller.

function run(ms, work) {
	return work(Date.now() + ms);
}

function named(end) {
	let x = 1;
	while (Date.now() < end)
		for (let i = 0; i < 1000; i++)
			x = (x * 31 + 7) % 1000003;
	return x;
}

let total = run(120, named);
total += run(120, function (end) {
	let x = 1;
	while (Date.now() < end)
		for (let i = 0; i < 1000; i++)
			x = (x * 17 + 3) % 999983;
	return x;
});
// two arrow functions on one line: only their columns tell them apart
total += run(120, (end) => { let x = 1; while (Date.now() < end) x = (x * 13 + 1) % 999979; return x; }) + run(120, (end) => { let x = 1; while (Date.now() < end) x = (x * 11 + 5) % 999961; return x; });
console.log(total > 0 ? 'done' : 'never');
