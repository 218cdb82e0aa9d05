// A program for test/t_cli.sh: CPU time in a few functions of known
// shares, one of them recursive, written as two CPU profiles (a base, then
// a test in which slow takes twice its share), and a heap profile.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink int
var kept [][]byte

func spin(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

func fast()  { spin(20000) }
func slow(k int) { spin(20000 * k) }

func fib(n int) int {
	if n < 2 {
		spin(500)
		return n
	}
	return fib(n-1) + fib(n-2)
}

func allocate(size int) { kept = append(kept, make([]byte, size)) }

func work(k int, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		fast()
		slow(k)
		fib(12)
		allocate(1000 + len(kept)%7*333)
	}
}

func profile(path string, k int, d time.Duration) {
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	work(k, d)
	pprof.StopCPUProfile()
	f.Close()
}

func main() {
	runtime.MemProfileRate = 4096
	profile(os.Args[1], 1, 700*time.Millisecond)
	profile(os.Args[2], 2, 700*time.Millisecond)
	h, err := os.Create(os.Args[3])
	if err != nil {
		panic(err)
	}
	pprof.WriteHeapProfile(h)
	h.Close()
}
