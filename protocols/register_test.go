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
