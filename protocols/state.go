package protocols

import (
	"slices"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// runState is what the client libraries keep per process for the length
// of one run: Redisson's client id, its pub/sub entries and renewal map,
// Spring's registry id and local locks. A Java static map or a client
// object lives as long as the process; here it lives in the Runner, so
// runs share nothing and no state outlives its world.
type runState struct {
	procs    map[*sim.Process]map[string]any
	redisson map[redissonClientKey]*rclient
	channels byName[string] // Redisson's lock channels by lock name
}

// channel is Redisson's channel of the lock called name,
// redisson_lock__channel:{name}, formatted once a run: every client and
// every lock object of the name uses it.
func (st *runState) channel(name string) string {
	c := st.channels.get(name)
	if c == "" {
		c = prefixName("redisson_lock__channel", name)
		st.channels.set(name, c)
	}
	return c
}

// state is the run's client state. An Env built by hand (not through
// Runner.Lock) gets state private to this call: per-process sharing is
// lost, the protocol still runs.
func (e Env) state() *runState {
	if e.run == nil {
		return &runState{}
	}
	return e.run
}

// local returns the value called key of process p, creating it with
// init on first use. The sim is single-threaded, so no locking is needed.
func (e Env) local(p *sim.Process, key string, init func() any) any {
	st := e.state()
	if st.procs == nil {
		st.procs = map[*sim.Process]map[string]any{}
	}
	m := st.procs[p]
	if m == nil {
		m = map[string]any{}
		st.procs[p] = m
	}
	v, ok := m[key]
	if !ok {
		v = init()
		m[key] = v
	}
	return v
}

// WithState returns env carrying fresh per-run client state, for tests
// and tools that build locks without a Runner.
func WithState(env Env) Env {
	env.run = &runState{}
	return env
}

// callNoRetry sends one command without the process's retries, for the
// commands a client library sends outside its retry policy (Redisson's
// evalWriteNoRetryAsync).
func callNoRetry(t *sim.Thread, node string, args ...string) (sim.Reply, error) {
	cfg := t.Process().Client
	cfg.Retries = 0
	return t.CallWith(cfg, node, args...)
}

// monoNow reads the process's monotonic clock. Go's time.Now() carries a
// monotonic reading that clock steps do not move (Sub and Since use it),
// so Go clients measure elapsed time on it; Java's
// System.currentTimeMillis() is the wall clock: use t.Now() for those.
func monoNow(t *sim.Thread, _ Env) time.Duration { return t.Monotonic() }

// replicas counts the replica nodes of the deployment (redis-r1, redis-r2,
// ...): what a Redisson master/slave configuration knows as its available
// slaves. Zero on the single and independent topologies.
func replicas(t *sim.Thread) int {
	n := 0
	for t.World().Node("redis-r"+strconv.Itoa(n+1)) != nil {
		n++
	}
	return n
}

// ms renders d in whole milliseconds for PX/PEXPIRE arguments.
func ms(d time.Duration) string {
	m := d.Milliseconds()
	if s := m / 1000; m%1000 == 0 && s >= 0 && s < int64(len(wholeSecondsMs)) {
		return wholeSecondsMs[s]
	}
	return strconv.FormatInt(m, 10)
}

// wholeSecondsMs is ms of 0 s to 60 s (the usual leases), formatted once
// and only read.
var wholeSecondsMs = func() (ms [61]string) {
	for s := range ms {
		ms[s] = strconv.Itoa(s * 1000)
	}
	return ms
}()

// randomHex draws n random bytes from the process's stream as hex.
func randomHex(t *sim.Thread, n int) string {
	const digits = "0123456789abcdef"
	r := t.Rand()
	b := make([]byte, 0, 2*n)
	for range n {
		x := r.Uint32()
		b = append(b, digits[(x>>4)&0xf], digits[x&0xf])
	}
	return string(b)
}

// randomToken draws 16 random bytes and renders them as the Go clients do
// (base64 of 16 bytes: 22 characters unpadded, 24 padded).
func randomToken(t *sim.Thread, padded bool) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	r := t.Rand()
	b := make([]byte, 22)
	for i := range b {
		b[i] = alphabet[r.IntN(64)]
	}
	if padded {
		return string(b) + "=="
	}
	return string(b)
}

// byName holds a client's entries by name (its pub/sub entries, its
// renewal entries): a short list while it holds a few, as a client
// usually does, so that a client costs no maps; a map past byNameList.
type byName[V comparable] struct {
	list []named[V]
	one  [1]named[V] // list's storage for the first entry
	m    map[string]V
}

type named[V any] struct {
	name string
	v    V
}

const byNameList = 8

// get returns the entry called name, or V's zero value.
func (b *byName[V]) get(name string) V {
	if b.m != nil {
		return b.m[name]
	}
	for _, e := range b.list {
		if e.name == name {
			return e.v
		}
	}
	var zero V
	return zero
}

// set makes v the entry called name.
func (b *byName[V]) set(name string, v V) {
	switch {
	case b.m != nil:
		b.m[name] = v
		return
	case b.list == nil:
		b.list = b.one[:0]
	}
	for i := range b.list {
		if b.list[i].name == name {
			b.list[i].v = v
			return
		}
	}
	if len(b.list) < byNameList {
		b.list = append(b.list, named[V]{name, v})
		return
	}
	b.m = make(map[string]V, 2*byNameList)
	for _, e := range b.list {
		b.m[e.name] = e.v
	}
	b.m[name] = v
	b.list = nil
}

// del removes the entry called name.
func (b *byName[V]) del(name string) {
	if b.m != nil {
		delete(b.m, name)
		return
	}
	for i := range b.list {
		if b.list[i].name == name {
			b.list = slices.Delete(b.list, i, i+1)
			return
		}
	}
}
