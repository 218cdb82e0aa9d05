// shop: the request loop of a toy web shop, profiled with runtime/pprof.
// It serves /checkout and /search requests in turn for a few seconds and
// writes a CPU profile whose samples carry the request's handler as a
// pprof label.  -build v2 is the release that validates coupon codes with
// a regular expression compiled on every item.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"regexp"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
)

var (
	build   = flag.String("build", "v1", "v1, or v2: the slower discounts")
	seconds = flag.Float64("seconds", 2, "how long to serve")
	out     = flag.String("o", "shop.pprof", "the CPU profile to write")
	sink    int
)

var catalog = strings.Fields(strings.Repeat("apple banana cherry date elderberry fig grape honeydew kiwi lemon mango ", 40))

var couponV1 = regexp.MustCompile(`^[A-Z]{4}-[0-9]{4}$`)

func applyDiscounts(prices []int, coupon string) {
	for i := range prices {
		valid := false
		if *build == "v2" {
			valid = regexp.MustCompile(`^[A-Z]{4}-[0-9]{4}$`).MatchString(coupon)
		} else {
			valid = couponV1.MatchString(coupon)
		}
		if valid {
			prices[i] = prices[i] * 9 / 10
		}
	}
}

func priceCart(items []string) []int {
	prices := make([]int, len(items))
	for i, item := range items {
		for _, c := range item {
			prices[i] = prices[i]*31 + int(c)
		}
	}
	return prices
}

func checkout() {
	prices := priceCart(catalog[:200])
	applyDiscounts(prices, "SAVE-2024")
	sink += prices[0]
}

func rank(query string) []string {
	hits := append([]string(nil), catalog...)
	sort.Slice(hits, func(a, b int) bool {
		return strings.Contains(hits[a], query) && !strings.Contains(hits[b], query) ||
			hits[a] < hits[b]
	})
	return hits
}

func search() {
	sink += len(rank("an")[0])
}

func serve(handler string, h func()) {
	pprof.Do(context.Background(), pprof.Labels("handler", handler), func(context.Context) { h() })
}

func main() {
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	for time.Now().Before(deadline) {
		serve("/checkout", checkout)
		serve("/search", search)
	}
	pprof.StopCPUProfile()
	f.Close()
}
