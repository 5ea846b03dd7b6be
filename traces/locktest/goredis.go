package locktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Locker is a lock written with go-redis, as the application uses it:
// Lock blocks until it holds the lock or gives up, Unlock gives it back.
// Both must return once ctx is cancelled (a client crash, the end of a
// run).
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// GoRedis is a lock of one's own written against go-redis (plain
// commands, redsync, bsm/redislock...), run unmodified: each client
// thread of a scenario gets its own go-redis clients, connected through
// the simulated network to the simulated deployment (sim/bridge), and
// calls Lock and Unlock from ordinary goroutines in virtual time.
type GoRedis struct {
	// Name is the lock's name in traces; give each lock its own.
	// Letters, digits, '-' and '_' (the rule Data.Name follows too).
	Name string
	// New returns a lock on key over client: a redis.Client to the
	// master (topology single), or a failover client that finds the
	// master through the simulated sentinel (topology replicated).
	New func(client redis.UniversalClient, key string) Locker
	// NewPool, instead of New, returns a lock on key over one client per
	// independent master (topology independent: a redsync pool).
	NewPool func(clients []redis.UniversalClient, key string) Locker
	// Lease is the expiry the lock sets: the checker measures leases by
	// it and faults are drawn at its scale. Config.Leases does not apply:
	// the lock picks its own expiry.
	Lease time.Duration
	// Refused, when set, says which errors of Lock mean "someone else
	// holds it" (a failed acquire); other errors have an unknown outcome.
	Refused func(error) bool
	// NotOwner, when set, says which errors of Unlock mean "the lock was
	// no longer ours".
	NotOwner func(error) bool
	// Options, when set, are the clients' options, as the application
	// builds its clients: timeouts, retries and their backoff, PoolSize
	// and PoolTimeout, idle and lifetime limits, OnConnect. The bridge
	// sets the address and the dialer (leave Addr and Dialer empty); a
	// setting the simulated nodes cannot honour (TLS, a password, a DB
	// other than 0, RESP3) is refused. On topology replicated they apply
	// to the failover client. nil: go-redis's defaults.
	Options *redis.Options
	// FailoverOptions, when set, are the failover client's options on
	// topology replicated (instead of Options): MasterName (required, as
	// go-redis requires it; the simulated sentinel monitors the master
	// by it), timeouts, retries,
	// pool settings, OnConnect. The bridge sets the sentinel's address
	// and the dialer (leave SentinelAddrs and Dialer empty); reads from
	// replicas (RouteByLatency, RouteRandomly, ReplicaOnly), TLS and
	// passwords are refused. Setting it makes replicated the lock's
	// default topology. On topology single, without Options, the client
	// to the master gets the settings the failover client gives its
	// connections to the master (go-redis's conversion: every field the
	// two types share), so the same timeouts, retries, pool and OnConnect
	// apply on both topologies.
	FailoverOptions *redis.FailoverOptions
}

// bridgedFaults are the fault kinds a bridged lock cannot suffer.
var bridgedFaults = map[string]string{
	trace.FaultWatchdogStall: "a library's goroutines cannot be told apart from the application's",
}

// goProtocols holds one protocol per GoRedis value, so that every Check of
// one GoRedis binds the same lock to its name (see bind).
var goProtocols = struct {
	sync.Mutex
	m       map[*GoRedis]*protocols.Protocol
	options map[string]string // by name: the Options every value of the name has
}{m: map[*GoRedis]*protocols.Protocol{}, options: map[string]string{}}

// registered is g's protocol, built once.
func (g *GoRedis) registered() (*protocols.Protocol, error) {
	goProtocols.Lock()
	defer goProtocols.Unlock()
	if p, ok := goProtocols.m[g]; ok {
		return p, nil
	}
	p, err := g.protocol()
	if err != nil {
		return nil, err
	}
	opts := optionsShape(g.Options) + failoverShape(g.FailoverOptions)
	if prev, ok := goProtocols.options[g.Name]; ok && prev != opts {
		return nil, fmt.Errorf("locktest: another Config.GoRedis is already registered as %q, with other settings (Options %s, earlier %s): give each lock its own name", g.Name, opts, prev)
	}
	goProtocols.options[g.Name] = opts
	goProtocols.m[g] = &p
	return &p, nil
}

// protocol describes g as a protocol of the registry.
func (g *GoRedis) protocol() (protocols.Protocol, error) {
	if err := checkName(fieldGoRedis, g.Name); err != nil {
		return protocols.Protocol{}, err
	}
	switch {
	case (g.New == nil) == (g.NewPool == nil):
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s needs exactly one of New and NewPool", g.Name)
	case g.Lease <= 0:
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s needs its Lease", g.Name)
	}
	if err := bridge.CheckOptions(g.Options); err != nil {
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s: %v", g.Name, err)
	}
	if err := bridge.CheckFailoverOptions(g.FailoverOptions); err != nil {
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s: %v", g.Name, err)
	}
	if g.FailoverOptions != nil && g.FailoverOptions.MasterName == "" {
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s: FailoverOptions.MasterName is empty: go-redis's failover client asks the sentinel for the master by this name (the simulated sentinel monitors it under the name you give)", g.Name)
	}
	if g.FailoverOptions != nil && g.NewPool != nil {
		return protocols.Protocol{}, fmt.Errorf("locktest: Config.GoRedis %s: FailoverOptions is for a lock built by New on topology replicated, not NewPool", g.Name)
	}
	p := protocols.Protocol{Name: g.Name, Source: "go-redis code run through locksim's bridge",
		Summary: "a lock written with go-redis, run unmodified", Lease: g.Lease,
		Scripts:    protocols.CatalogScripts(),
		Topologies: []string{protocols.TopoSingle, protocols.TopoReplicated},
		New:        func(_ protocols.Env, key string) protocols.Lock { return &goLock{g: g, key: key} },
		Attach: func(w *sim.World, sc protocols.Scenario) error {
			return attachBridge(w, sc, g.Options, g.FailoverOptions)
		}}
	if g.NewPool != nil {
		p.Topologies, p.Masters = []string{protocols.TopoIndependent}, 5
	}
	if g.FailoverOptions != nil {
		p.Topologies = []string{protocols.TopoReplicated, protocols.TopoSingle}
	}
	return p, nil
}

// attachBridge connects a scenario's world to the bridge, refusing the
// faults one bubble cannot express.
func attachBridge(w *sim.World, sc protocols.Scenario, opts *redis.Options, failover *redis.FailoverOptions) error {
	for _, f := range sc.Faults {
		if why, ok := bridgedFaults[f.Kind]; ok {
			return fmt.Errorf("fault %s on %s: not available for a lock run through the go-redis bridge: %s", f.Kind, f.Target, why)
		}
		if (f.Kind == trace.FaultClockJump || f.Kind == trace.FaultClockDrift) && w.Node(f.Target) == nil && f.Target != sim.Master {
			return fmt.Errorf("fault %s on %s: a process run through the go-redis bridge has no clock of its own (its goroutines share the bubble's clock); aim clock faults at nodes", f.Kind, f.Target)
		}
	}
	topo := bridge.Topology{Kind: bridge.Single, Nodes: protocols.LockNodes(sc), Options: opts, Failover: failover}
	switch sc.Topology {
	case protocols.TopoReplicated:
		topo.Kind = bridge.Sentinel
	case protocols.TopoIndependent:
		topo.Kind = bridge.Pool
	}
	_, err := bridge.Attach(w, topo)
	return err
}

// goLock is one operation's lock: the user's Locker, built on the
// calling thread's clients at the first Acquire.
type goLock struct {
	g    *GoRedis
	key  string
	lock Locker
}

func (l *goLock) call(t *sim.Thread, fn func(ctx context.Context, lk Locker) error) error {
	b := bridge.Of(t.World())
	if b == nil {
		panic("locktest: a GoRedis lock ran in a world without the bridge")
	}
	return b.Call(t, func(ctx context.Context, c *bridge.Clients) error {
		if l.lock == nil {
			if l.g.NewPool != nil {
				l.lock = l.g.NewPool(c.Pool, l.key)
			} else {
				l.lock = l.g.New(c.Client, l.key)
			}
		}
		return fn(ctx, l.lock)
	})
}

func (l *goLock) Acquire(t *sim.Thread) (bool, error) {
	err := l.call(t, func(ctx context.Context, lk Locker) error { return lk.Lock(ctx) })
	return outcome(err, l.g.Refused)
}

func (l *goLock) Release(t *sim.Thread) (bool, error) {
	if l.lock == nil {
		return false, nil
	}
	err := l.call(t, func(ctx context.Context, lk Locker) error { return lk.Unlock(ctx) })
	return outcome(err, l.g.NotOwner)
}

// outcome turns a Locker's error into the history's result: ok, a
// definite no, or an error whose outcome is unknown.
func outcome(err error, no func(error) bool) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case no != nil && no(err):
		return false, nil
	}
	return false, err
}

// errNeedsT is the error of a GoRedis lock run without a *testing.T.
var errNeedsT = errors.New("locktest: a GoRedis lock runs in a testing/synctest bubble: run it with Check (its t a *testing.T or a Wrapper), Fuzz or EvaluateT")

// Wrapper is a TB that wraps a *testing.T, for Check of a GoRedis lock
// through a TB of one's own.
type Wrapper interface {
	TestingT() *testing.T
}

// bubbleT returns the error of a GoRedis lock that cannot run in t: no
// *testing.T, or a parallel test.
func (c *config) bubbleT(t *testing.T) error {
	if t == nil {
		return errNeedsT
	}
	if inParallel(t) {
		return fmt.Errorf("locktest: Config.GoRedis %s cannot run in a parallel test: each run seeds crypto/rand and math/rand for the whole process (testing/cryptotest); drop t.Parallel from %s and its parents", c.Protocol, t.Name())
	}
	c.t = t
	return nil
}

// inParallel reports whether t or a parent of t called t.Parallel, which
// testing only tells by refusing t.Setenv (process-wide state) there.
func inParallel(t *testing.T) (yes bool) {
	defer func() { yes = recover() != nil }()
	t.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	return false
}

// testingT is the *testing.T behind t, or nil.
func testingT(t TB) *testing.T {
	switch v := t.(type) {
	case *testing.T:
		return v
	case Wrapper:
		return v.TestingT()
	}
	return nil
}

// execute runs sc, in a bubble of c.t for a bridged lock.
func (c *config) execute(sc protocols.Scenario) (*traces.Outcome, error) {
	if c.slot != nil {
		defer c.slot.use(c.Lock)()
	}
	if !c.bridged {
		return traces.Execute(sc)
	}
	if c.t == nil {
		return nil, errNeedsT
	}
	var o *traces.Outcome
	var err error
	left := bridge.Run(c.t, sc.Seed, func() { o, err = traces.Execute(sc) })
	if err == nil && left != nil {
		o, err = nil, left
	}
	return o, err
}

// EvaluateT is Evaluate for a test: a GoRedis lock needs t for the
// bubble its runs happen in.
func EvaluateT(t *testing.T, cfg Config, sc protocols.Scenario) (*Result, error) {
	c, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	if c.bridged {
		if err := c.bubbleT(t); err != nil {
			return nil, err
		}
	}
	return c.evaluate(sc, "")
}

// optionsShape is what of o decides a run: two GoRedis values under one
// name must agree on it.
func optionsShape(o *redis.Options) string {
	if o == nil {
		return "default"
	}
	return fmt.Sprintf("{DialTimeout:%v ReadTimeout:%v WriteTimeout:%v ContextTimeoutEnabled:%v MaxRetries:%d MinRetryBackoff:%v MaxRetryBackoff:%v PoolSize:%d PoolTimeout:%v PoolFIFO:%v MinIdleConns:%d MaxIdleConns:%d MaxActiveConns:%d ConnMaxIdleTime:%v ConnMaxLifetime:%v ClientName:%q OnConnect:%v}",
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled, o.MaxRetries, o.MinRetryBackoff, o.MaxRetryBackoff,
		o.PoolSize, o.PoolTimeout, o.PoolFIFO, o.MinIdleConns, o.MaxIdleConns, o.MaxActiveConns, o.ConnMaxIdleTime, o.ConnMaxLifetime,
		o.ClientName, o.OnConnect != nil)
}

// failoverShape is optionsShape for FailoverOptions.
func failoverShape(o *redis.FailoverOptions) string {
	if o == nil {
		return ""
	}
	return fmt.Sprintf(" failover {MasterName:%q DialTimeout:%v ReadTimeout:%v WriteTimeout:%v ContextTimeoutEnabled:%v MaxRetries:%d MinRetryBackoff:%v MaxRetryBackoff:%v PoolSize:%d PoolTimeout:%v}",
		o.MasterName, o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled, o.MaxRetries, o.MinRetryBackoff, o.MaxRetryBackoff,
		o.PoolSize, o.PoolTimeout)
}
