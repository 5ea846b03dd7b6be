package protocols

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

var registryRounds atomic.Int64

// TestRegistryConcurrentUse registers and looks up from many goroutines at
// once; under -race a missing lock fails it.
func TestRegistryConcurrentUse(t *testing.T) {
	round := registryRounds.Add(1) // -count=N registers new names each round
	base, err := Lookup("setnx-lua-del")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := base
			p.Name = fmt.Sprintf("registry-test-%d-%d", round, i)
			if err := Register(p); err != nil {
				t.Error(err)
			}
			if err := Register(p); err == nil {
				t.Errorf("second Register(%s) succeeded", p.Name)
			}
			if _, err := Lookup(p.Name); err != nil {
				t.Error(err)
			}
			_ = Protocols()
		}()
	}
	wg.Wait()
}

// TestCatalogScriptsHoldEveryFastPathOnce: a lock whose scripts are only
// known at run time (the go-redis bridge) finds every fast path the
// catalog proves, and each body once.
func TestCatalogScriptsHoldEveryFastPathOnce(t *testing.T) {
	got := map[string]int{}
	for _, s := range CatalogScripts() {
		if s.FastPath == nil {
			t.Errorf("script without a fast path listed: %.60q", s.Source)
		}
		got[s.Source]++
	}
	for src, n := range got {
		if n > 1 {
			t.Errorf("body listed %d times: %.60q", n, src)
		}
	}
	want := 0
	for _, p := range Protocols() {
		for _, s := range p.Scripts {
			if s.FastPath == nil {
				continue
			}
			want++
			if got[s.Source] == 0 {
				t.Errorf("%s: fast-path script missing: %.60q", p.Name, s.Source)
			}
		}
	}
	if want == 0 || len(got) == 0 {
		t.Fatalf("catalog declares %d fast-path scripts, CatalogScripts lists %d", want, len(got))
	}
}
