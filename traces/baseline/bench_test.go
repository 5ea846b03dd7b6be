package baseline

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkTimeToFirstViolation measures, for each protocol and workload,
// how long each side takes to show the first violation of the scaled
// gc-pause experiment (Scaled): real-redis runs real-time trials against
// redis-server, seed after seed from 0, GOMAXPROCS of them side by side;
// sim runs explore.Explore with UntilFirst over the same seeds on
// GOMAXPROCS workers. ns/op is the wall time of one search; runs/op is
// how many seeds were started; run-s/op is the experiment time those runs
// covered (real or simulated). The sim side then logs both sides and the
// ratio of their mean time to the first violation (the real side's mean
// over all its searches so far: with -count, the testing package runs all
// the real-redis repetitions before the sim ones).
//
//	go test -run XXX -bench TimeToFirstViolation -count 3 ./traces/baseline
func BenchmarkTimeToFirstViolation(b *testing.B) {
	for _, protocol := range []string{"setnx-del", "setnx-lua-del"} {
		for _, workload := range []string{"unique-name", "stock"} {
			sc := Scaled(protocol, workload)
			b.Run(protocol+"/"+workload, func(b *testing.B) {
				var reals []*Result
				b.Run("real-redis", func(b *testing.B) {
					srv := needRedis(b)
					reals = append(reals, measure(b, func() (*Result, error) {
						return FirstViolationReal(context.Background(), RealConfig{Addr: srv.Addr, Base: sc, Trials: 100})
					})...)
				})
				b.Run("sim", func(b *testing.B) {
					sims := measure(b, func() (*Result, error) {
						return FirstViolationSim(context.Background(), SimConfig{Base: sc, Runs: 100000})
					})
					if len(reals) > 0 {
						b.Logf("\n%s  real-redis searches: %s; sim searches: %s",
							Summary(sc, mean(reals), mean(sims)), spread(reals), spread(sims))
					}
				})
			})
		}
	}
}

// measure runs search b.N times, reports the means and returns every
// result.
func measure(b *testing.B, search func() (*Result, error)) []*Result {
	var out []*Result
	var runs int
	var covered time.Duration
	for b.Loop() {
		r, err := search()
		if err != nil {
			b.Fatal(err)
		}
		if !r.Found {
			b.Logf("no violation: %s", r)
		}
		runs += r.Runs
		covered += r.Covered
		out = append(out, r)
	}
	b.ReportMetric(float64(runs)/float64(b.N), "runs/op")
	b.ReportMetric(covered.Seconds()/float64(b.N), "run-s/op")
	return out
}

// mean is the last of rs with the mean Wall of all (Result.Wall: to the
// first violation, without what follows it), found only if all found.
func mean(rs []*Result) *Result {
	m := *rs[len(rs)-1]
	var sum time.Duration
	for _, r := range rs {
		sum += r.Wall
		m.Found = m.Found && r.Found
	}
	m.Wall = sum / time.Duration(len(rs))
	return &m
}

// spread renders how many searches rs holds and their range of Wall.
func spread(rs []*Result) string {
	walls := make([]time.Duration, len(rs))
	for i, r := range rs {
		walls[i] = r.Wall
	}
	return fmt.Sprintf("%d, %s to %s", len(rs), round(slices.Min(walls)), round(slices.Max(walls)))
}
