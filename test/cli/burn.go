// A program for test/t_cli.sh: CPU time in a few functions, one of them
// recursive, written as two CPU profiles (a base, then a test in which
// slow does twice the work), and a heap profile.  Each profile is of a
// fixed amount of work, not of a time: the CPU profiler samples CPU time,
// so a busy machine gives as many samples, only later.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var sink int
var kept [][]byte

func spin(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

func fast()      { spin(20000) }
func slow(k int) { spin(20000 * k) }

func fib(n int) int {
	if n < 2 {
		spin(500)
		return n
	}
	return fib(n-1) + fib(n-2)
}

func allocate(size int) { kept = append(kept, make([]byte, size)) }

func work(k int, rounds int) {
	for i := 0; i < rounds; i++ {
		fast()
		slow(k)
		fib(12)
		allocate(1000 + len(kept)%7*333)
	}
}

func profile(path string, k int, rounds int) {
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	work(k, rounds)
	pprof.StopCPUProfile()
	f.Close()
}

func main() {
	runtime.MemProfileRate = 4096
	profile(os.Args[1], 1, 2000)
	profile(os.Args[2], 2, 2000)
	h, err := os.Create(os.Args[3])
	if err != nil {
		panic(err)
	}
	pprof.WriteHeapProfile(h)
	h.Close()
}
