package bridge

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
)

// Kind is which go-redis clients a bridged thread gets.
type Kind int

const (
	// Single: one redis.Client to the first node.
	Single Kind = iota
	// Sentinel: one failover client (redis.NewFailoverClient) that asks
	// the simulated sentinel for the master.
	Sentinel
	// Pool: one redis.Client per node, for a lock over independent
	// masters (a redsync pool).
	Pool
)

// Topology is what bridged threads connect to.
type Topology struct {
	Kind Kind
	// Nodes are the Redis nodes clients may reach, in this order; node i
	// listens on 10.0.0.<i+1>:6379, the sentinel on 10.0.1.1:26379.
	Nodes []string
	// Options are the user's client options (see CheckOptions for what
	// cannot be set); under Sentinel, its timeouts, retries and pool
	// settings go to the failover client. nil: go-redis's defaults.
	Options *redis.Options
	// Failover, under Sentinel, are the user's failover client options
	// instead of Options (see CheckFailoverOptions): the sentinel
	// monitors the master by its MasterName. Under Single and Pool,
	// without Options, the clients get the options the failover client
	// gives its connections to the master (masterOptions).
	Failover *redis.FailoverOptions
}

// SentinelAddr is the simulated sentinel's address.
const SentinelAddr = "10.0.1.1:26379"

// Bridge connects ordinary Go code running in the bubble (go-redis
// clients, goroutines, timers, contexts) to one world.
type Bridge struct {
	w        *sim.World
	topo     Topology
	start    time.Time
	party    map[string]string // address -> node or sim.Sentinel (read-only once attached)
	addr     map[string]string // node or sim.Sentinel -> address
	threads  map[*sim.Thread]*thread
	procs    []*proc
	byProc   map[*sim.Process]*proc
	nextID   int
	dirty    bool // the world gave outside code something since the last Settle
	sentinel *sentinel
	crashes  map[string]int   // node -> crashes so far
	done     chan struct{}    // closed when the run ends
	alarm    *time.Timer      // Sleep's, made at the first
	names    map[string]label // by command name as sent: a one-command message's labels

	mu       sync.Mutex
	inbox    []input
	spare    []input           // the inbox Settle applied last, for reuse
	notify   chan struct{}     // cap 1: the inbox grew
	running  map[int64]running // by goroutine id: calls that have not returned
	callDone chan struct{}     // cap 1: a call returned
}

// input is something outside code handed to the world: applied at the
// next quiescence point, in (source, seq) order, so the goroutine
// scheduler never decides what the world sees first.
type input struct {
	src string
	seq uint64
	fn  func()
}

// Attach connects a new bridge to w, which must be built (nodes added)
// but not yet run, inside a testing/synctest bubble (see Run).
func Attach(w *sim.World, topo Topology) (*Bridge, error) {
	if !inBubble() {
		return nil, errors.New("bridge: not in a testing/synctest bubble (run the world inside bridge.Run)")
	}
	if err := CheckOptions(topo.Options); err != nil {
		return nil, fmt.Errorf("bridge: %v", err)
	}
	if err := CheckFailoverOptions(topo.Failover); err != nil {
		return nil, fmt.Errorf("bridge: %v", err)
	}
	if topo.Kind != Sentinel && topo.Options == nil && topo.Failover != nil {
		topo.Options = masterOptions(topo.Failover)
	}
	if w.External() != nil {
		return nil, errors.New("bridge: the world already has outside code attached")
	}
	b := &Bridge{w: w, topo: topo, start: time.Now().Add(-w.Now()), party: map[string]string{}, addr: map[string]string{},
		threads: map[*sim.Thread]*thread{}, byProc: map[*sim.Process]*proc{}, notify: make(chan struct{}, 1),
		crashes: map[string]int{}, names: map[string]label{}, done: make(chan struct{}), running: map[int64]running{}, callDone: make(chan struct{}, 1)}
	for i, n := range topo.Nodes {
		if w.Node(n) == nil {
			return nil, fmt.Errorf("bridge: no node %q", n)
		}
		a := net.JoinHostPort("10.0.0."+strconv.Itoa(i+1), "6379")
		b.party[a], b.addr[n] = n, a
	}
	if topo.Kind == Sentinel {
		b.party[SentinelAddr], b.addr[sim.Sentinel] = sim.Sentinel, SentinelAddr
		b.sentinel = newSentinel(b)
	}
	w.SetExternal(b)
	w.OnEnd(b.close)
	w.OnNodeCrash(b.nodeCrashed)
	return b, nil
}

// nodeCrashed closes the node's connections from its host's side, as the
// kernel does for a process that died: each open connection gets the
// close through the network.
func (b *Bridge) nodeCrashed(node string) {
	b.crashes[node]++
	for _, pr := range b.procs {
		for _, l := range pr.links {
			if l.party == node && !l.gone {
				l.closed()
			}
		}
	}
}

// inBubble reports whether the caller runs in a synctest bubble.
func inBubble() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	synctest.Wait()
	return true
}

// Of returns the bridge attached to w, or nil.
func Of(w *sim.World) *Bridge {
	b, _ := w.External().(*Bridge)
	return b
}

// now is the bubble's clock as virtual time.
func (b *Bridge) now() time.Duration { return time.Since(b.start) }

// push hands an input to the world (any goroutine).
func (b *Bridge) push(src string, seq uint64, fn func()) {
	b.mu.Lock()
	b.inbox = append(b.inbox, input{src, seq, fn})
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// take empties the inbox; what it returns is valid until the next take.
func (b *Bridge) take() []input {
	b.mu.Lock()
	defer b.mu.Unlock()
	in := b.inbox
	clear(b.spare) // (drop the applied closures)
	b.inbox, b.spare = b.spare[:0], in
	return in
}

// Settle implements sim.External: it waits until every goroutine of the
// bubble is blocked, then feeds what they sent to the world in a fixed
// order.
func (b *Bridge) Settle() {
	if !b.dirty {
		return
	}
	b.dirty = false
	synctest.Wait()
	// Every goroutine of the bubble is blocked: the inbox holds all they
	// sent, so the notification that it grew is spent. Left in its
	// channel, it would end the world's next Sleep at once, with nothing
	// to take, and cost a round of Settle and Sleep for nothing.
	select {
	case <-b.notify:
	default:
	}
	in := b.take()
	slices.SortStableFunc(in, func(x, y input) int {
		if x.src != y.src {
			if x.src < y.src {
				return -1
			}
			return 1
		}
		return int(x.seq) - int(y.seq)
	})
	for _, x := range in {
		x.fn()
	}
}

// Sleep implements sim.External: the bubble's clock runs until until, or
// until a goroutine that a timer woke sends something.
func (b *Bridge) Sleep(until time.Duration) (time.Duration, bool) {
	b.dirty = true // timers of the new instant may have woken goroutines
	if b.alarm == nil {
		b.alarm = time.NewTimer(until - b.now())
	} else {
		b.alarm.Reset(until - b.now())
	}
	early := false
	select {
	case <-b.alarm.C:
	case <-b.notify:
		early = true
		b.alarm.Stop()
	}
	b.mu.Lock()
	early = early || len(b.inbox) > 0
	b.mu.Unlock()
	return b.now(), early
}
