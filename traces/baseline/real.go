package baseline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// compareAndDelete is seed 001's release script, as protocols sends it.
const compareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
	"   return redis.call('del', KEYS[1]) " +
	"else " +
	"   return 0 " +
	"end"

// Trial is one real-time run of a scenario against redis-server.
type Trial struct {
	Seed uint64
	// Wall is how long the trial ran: to its first violation, or to the
	// end of its last thread.
	Wall      time.Duration
	Violation *Violation // the first violation, nil if none
	Acquired  int        // successful acquisitions
	Pauses    int        // GC pauses that the schedule put on the clients
	// Log has one line per step: each Redis command and its reply, each
	// database request, each pause waited out, in the order they ended.
	Log []string
}

// Violation is the first violation a real trial saw, in the checker's
// terms.
type Violation struct {
	Property string        // checker.PropMutex or checker.PropDamage
	Key      string        // the lock key, or the row or counter damaged
	Clients  []string      // the two threads, earlier one first ("c1/t1")
	At       time.Duration // since the trial started
	Detail   string
}

func (v *Violation) String() string {
	return fmt.Sprintf("%s on %s, %s and %s, at t=%.2f s: %s",
		v.Property, v.Key, v.Clients[0], v.Clients[1], v.At.Seconds(), v.Detail)
}

// errStop unwinds a thread whose trial is over.
var errStop = errors.New("trial stopped")

// Check returns an error if the real harness cannot run sc (normalized).
func Check(sc protocols.Scenario) error {
	switch {
	case sc.Protocol != "setnx-del" && sc.Protocol != "setnx-lua-del":
		return fmt.Errorf("baseline: protocol %q has no real-redis version (setnx-del, setnx-lua-del)", sc.Protocol)
	case sc.Workload != "unique-name" && sc.Workload != "stock":
		return fmt.Errorf("baseline: workload %q has no real-redis version (unique-name, stock)", sc.Workload)
	case sc.Topology != protocols.TopoSingle:
		return fmt.Errorf("baseline: topology %q: the real side runs one redis-server", sc.Topology)
	}
	for _, f := range sc.Faults {
		if f.Kind != trace.FaultGCPause {
			return fmt.Errorf("baseline: fault %q: the real side injects gc-pause only", f.Kind)
		}
	}
	return nil
}

// clientOptions is one client process's go-redis configuration: RESP2,
// no retries (the setnx protocols have none in the sim), the scenario's
// command timeout, and none of the connect-time extras.
func clientOptions(addr string, db int) *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		DB:                       db,
		Protocol:                 2,
		MaxRetries:               -1,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// RunTrial runs sc in real time against the redis-server at addr, in
// database db, which it empties first. sc is normalized first, so a
// scenario with fault kinds and no schedule gets the sim's schedule for
// its seed. The trial stops at its first violation. Cancelling ctx stops
// it early with no error.
func RunTrial(ctx context.Context, addr string, db int, sc protocols.Scenario) (*Trial, error) {
	sc, err := sc.Normalize()
	if err != nil {
		return nil, err
	}
	if err := Check(sc); err != nil {
		return nil, err
	}
	setup := redis.NewClient(clientOptions(addr, db))
	defer setup.Close()
	err = setup.FlushDB(ctx).Err()
	if err == nil && sc.Workload == "stock" {
		err = setup.Set(ctx, protocols.StockKey, sc.Stock, 0).Err()
	}
	switch {
	case ctx.Err() != nil:
		return &Trial{Seed: sc.Seed}, nil
	case err != nil:
		return nil, fmt.Errorf("baseline: setting up database %d on %s: %v", db, addr, err)
	}

	ctx, cancel := context.WithTimeout(ctx, time.Duration(sc.HorizonMs)*time.Millisecond)
	defer cancel()
	tr := &trial{sc: sc, cancel: cancel, holders: map[string]map[string]bool{},
		rows: map[string]string{}, sold: map[int]string{}}
	threads, clients, err := tr.dial(ctx, addr, db)
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	switch {
	case ctx.Err() != nil:
		return &Trial{Seed: sc.Seed}, nil
	case err != nil:
		return nil, err
	}
	return tr.run(threads)
}

// dial connects one client per simulated process and builds its threads.
func (tr *trial) dial(ctx context.Context, addr string, db int) ([]*thread, []*redis.Client, error) {
	sc := tr.sc
	var clients []*redis.Client
	var threads []*thread
	for c := 0; c < sc.Clients; c++ {
		opts := clientOptions(addr, db)
		opts.ReadTimeout = time.Duration(sc.TimeoutMs) * time.Millisecond
		opts.WriteTimeout = opts.ReadTimeout
		rdb := redis.NewClient(opts)
		clients = append(clients, rdb)
		// Dial before the clock starts, so that no client's first
		// command pays for a TCP handshake the sim does not have.
		if err := rdb.Ping(ctx).Err(); err != nil {
			return nil, clients, fmt.Errorf("baseline: PING %s: %v", addr, err)
		}
		name := sc.Client(c)
		ps := pausesOf(sc, name)
		tr.pauses += len(ps)
		// The process's random stream is the one its sim twin draws from
		// (sim.Thread.Rand): with one thread per client, the same think
		// times and tokens in the same order.
		rnd := &procRand{r: sim.NewStreams(sc.Seed).Get("proc/" + name)}
		for t := 0; t < sc.Threads; t++ {
			tname := "t" + strconv.Itoa(t+1)
			threads = append(threads, &thread{
				tr: tr, ctx: ctx, rdb: rdb, pauses: ps, rnd: rnd,
				name: name + "/" + tname, tname: tname,
				late: time.Duration(int64(c)*sc.StaggerMs) * time.Millisecond,
			})
		}
	}
	return threads, clients, nil
}

// run starts every thread at once and waits for them (or the first
// violation).
func (tr *trial) run(threads []*thread) (*Trial, error) {
	sc := tr.sc
	errs := make(chan error, len(threads))
	tr.start = time.Now()
	var wg sync.WaitGroup
	for _, th := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- th.run()
		}()
	}
	wg.Wait()
	end := time.Since(tr.start)
	close(errs)
	for err := range errs {
		if err != nil && !errors.Is(err, errStop) {
			return nil, err
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := &Trial{Seed: sc.Seed, Wall: end, Violation: tr.first, Acquired: tr.acquired, Pauses: tr.pauses, Log: tr.log}
	if tr.first != nil {
		out.Wall = tr.first.At
	}
	return out, nil
}

// trial is the shared state of one real run: the ground truth the
// violation checks read.
type trial struct {
	sc     protocols.Scenario
	start  time.Time
	cancel context.CancelFunc
	pauses int

	mu       sync.Mutex
	holders  map[string]map[string]bool // lock key -> threads that believe they hold it
	rows     map[string]string          // the person table: name -> the thread that inserted it
	sold     map[int]string             // stock reading -> the thread that sold from it
	acquired int
	first    *Violation
	log      []string
}

// logf appends a line to the trial's log.
func (tr *trial) logf(format string, args ...any) {
	line := fmt.Sprintf("%8.3f ", time.Since(tr.start).Seconds()) + fmt.Sprintf(format, args...)
	tr.mu.Lock()
	tr.log = append(tr.log, line)
	tr.mu.Unlock()
}

// violate records v if it is the trial's first violation and stops the
// trial. Called with mu held.
func (tr *trial) violate(v Violation) {
	if tr.first != nil {
		return
	}
	v.At = time.Since(tr.start)
	tr.first = &v
	tr.cancel()
}

// acquired records that th's acquire of key returned OK; another thread
// that still believes it holds key makes a mutual-exclusion violation.
func (tr *trial) acquire(th *thread, key string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.acquired++
	hs := tr.holders[key]
	if hs == nil {
		hs = map[string]bool{}
		tr.holders[key] = hs
	}
	for other := range hs {
		if other != th.name {
			tr.violate(Violation{Property: checker.PropMutex, Key: key, Clients: []string{other, th.name},
				Detail: fmt.Sprintf("%s acquired %s while %s still believed it held it", th.name, key, other)})
			break
		}
	}
	hs[th.name] = true
}

// release records that th starts releasing key: it no longer believes it
// holds it.
func (tr *trial) release(th *thread, key string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	delete(tr.holders[key], th.name)
}

// selectRow is the database's SELECT: how many rows have name.
func (tr *trial) selectRow(th *thread, name string) int {
	tr.mu.Lock()
	_, ok := tr.rows[name]
	tr.mu.Unlock()
	n := 0
	if ok {
		n = 1
	}
	tr.logf("%s SELECT %s -> %d", th.name, name, n)
	return n
}

// insert is the database's INSERT; a second row for name is a duplicate.
func (tr *trial) insert(th *thread, name string) {
	tr.logf("%s INSERT %s", th.name, name)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if first, ok := tr.rows[name]; ok {
		tr.violate(Violation{Property: checker.PropDamage, Key: name, Clients: []string{first, th.name},
			Detail: fmt.Sprintf("both %s and %s found %s absent under the lock and inserted it: a duplicate row", first, th.name, name)})
		return
	}
	tr.rows[name] = th.name
}

// sell records that th sold one unit from the stock it read; a second
// sale from the same reading is a lost update.
func (tr *trial) sell(th *thread, read int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if first, ok := tr.sold[read]; ok {
		tr.violate(Violation{Property: checker.PropDamage, Key: protocols.StockKey, Clients: []string{first, th.name},
			Detail: fmt.Sprintf("both %s and %s read stock %d and wrote %d: a lost update", first, th.name, read, read-1)})
		return
	}
	tr.sold[read] = th.name
}

// thread is one client thread: a goroutine running the workload's steps
// with its process's go-redis client.
type thread struct {
	tr     *trial
	ctx    context.Context
	rdb    *redis.Client
	pauses pauses
	name   string // "c1/t1"
	tname  string // "t1", the Java thread name in tokens
	late   time.Duration
	rnd    *procRand
}

// procRand is a process's random stream, shared by its threads.
type procRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (p *procRand) int64N(n int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r.Int64N(n)
}

// uuid draws a version 4 UUID as protocols does.
func (p *procRand) uuid() string {
	p.mu.Lock()
	a, b := p.r.Uint64(), p.r.Uint64()
	p.mu.Unlock()
	a = (a &^ (0xf << 12)) | (0x4 << 12)
	b = (b &^ (0x3 << 62)) | (0x2 << 62)
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func (th *thread) run() error {
	if err := th.sleep(th.late); err != nil {
		return err
	}
	if th.tr.sc.Workload == "stock" {
		return th.stock()
	}
	return th.uniqueName()
}

// sleep waits d, then waits out a pause of the process that covers the
// moment it wakes up.
func (th *thread) sleep(d time.Duration) error {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-th.ctx.Done():
			return errStop
		}
	}
	return th.resume()
}

// resume blocks while the thread's process is in a GC pause. A
// stop-the-world pause holds the process's timers and the replies sent to
// it until it ends (as in the sim), so the thread's next step starts no
// earlier than the pause's end: a real sleep of the goroutine.
func (th *thread) resume() error {
	for {
		if th.ctx.Err() != nil {
			return errStop
		}
		end, ok := th.pauses.covering(time.Since(th.tr.start))
		if !ok {
			return nil
		}
		th.tr.logf("%s paused until %.3f", th.name, end.Seconds())
		t := time.NewTimer(time.Until(th.tr.start.Add(end)))
		select {
		case <-t.C:
		case <-th.ctx.Done():
			t.Stop()
			return errStop
		}
		th.tr.logf("%s resumed", th.name)
	}
}

// call sends one command and waits out a pause that began while it was
// in flight. A nil reply comes back as nil, no error.
func (th *thread) call(args ...any) (any, error) {
	if err := th.resume(); err != nil {
		return nil, err
	}
	v, err := th.rdb.Do(th.ctx, args...).Result()
	if th.ctx.Err() != nil {
		return nil, errStop
	}
	if errors.Is(err, redis.Nil) {
		v, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %s: %v %v", th.name, args[0], err)
	}
	th.tr.logf("%s %v -> %v", th.name, args, v)
	return v, th.resume()
}

func (th *thread) think() error {
	if ms := th.tr.sc.ThinkMs; ms > 0 {
		return th.sleep(time.Duration(th.rnd.int64N(ms+1)) * time.Millisecond)
	}
	return nil
}

func (th *thread) work() error  { return th.sleep(time.Duration(th.tr.sc.WorkMs) * time.Millisecond) }
func (th *thread) retry() error { return th.sleep(time.Duration(th.tr.sc.RetryMs) * time.Millisecond) }

// uniqueName is protocols' unique-name thread (seed 002 with section 1's
// double check): look the name up, lock, look it up again, work, insert,
// release; a refused lock is retried after RetryMs.
func (th *thread) uniqueName() error {
	sc := th.tr.sc
	for i := 0; i < sc.Ops; i++ {
		if err := th.think(); err != nil {
			return err
		}
		name := fmt.Sprintf("person-%d", i)
		for attempt := 0; attempt < sc.Attempts; attempt++ {
			if th.tr.selectRow(th, name) != 0 {
				break // "Nome já cadastrado."
			}
			if err := th.resume(); err != nil {
				return err
			}
			l := th.lock("trava_nome_" + name)
			ok, err := l.acquire()
			if err != nil {
				return err
			}
			if !ok {
				if err := th.retry(); err != nil {
					return err
				}
				continue
			}
			absent := th.tr.selectRow(th, name) == 0
			if err := th.resume(); err != nil {
				return err
			}
			if absent {
				if err := th.work(); err != nil {
					return err
				}
				th.tr.insert(th, name)
				if err := th.resume(); err != nil {
					return err
				}
			}
			if err := l.release(); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// stock is protocols' stock thread (seed 001's buy()): lock, GET
// goods:001, work, SET it minus one if positive, release.
func (th *thread) stock() error {
	sc := th.tr.sc
	for i := 0; i < sc.Ops; i++ {
		if err := th.think(); err != nil {
			return err
		}
		for attempt := 0; attempt < sc.Attempts; attempt++ {
			l := th.lock("redisLock")
			ok, err := l.acquire()
			if err != nil {
				return err
			}
			if !ok {
				if err := th.retry(); err != nil {
					return err
				}
				continue
			}
			v, err := th.call("GET", protocols.StockKey)
			if err != nil {
				return err
			}
			s, _ := v.(string)
			stock, _ := strconv.Atoi(s)
			if err := th.work(); err != nil {
				return err
			}
			if stock > 0 {
				if _, err := th.call("SET", protocols.StockKey, strconv.Itoa(stock-1)); err != nil {
					return err
				}
				th.tr.sell(th, stock)
			}
			if err := l.release(); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// lock is one acquisition of key with the scenario's protocol, recorded
// for the mutual-exclusion check: an OK acquire starts the thread's
// belief that it holds key, the start of its release ends it.
type lock struct {
	th    *thread
	key   string
	token string // setnx-lua-del only
}

func (th *thread) lock(key string) *lock { return &lock{th: th, key: key} }

// acquire sends the protocol's SET ... EX <lease in s> NX, the command
// the sim sends: a constant value for setnx-del, a UUID plus the thread
// name for setnx-lua-del.
func (l *lock) acquire() (bool, error) {
	sc := l.th.tr.sc
	value := "bloqueado"
	if sc.Protocol == "setnx-lua-del" {
		l.token = l.th.rnd.uuid() + l.th.tname
		value = l.token
	}
	v, err := l.th.call("SET", l.key, value, "EX", seconds(sc.LeaseMs), "NX")
	if err != nil {
		return false, err
	}
	ok := v == "OK"
	if ok {
		l.th.tr.acquire(l.th, l.key)
	}
	return ok, nil
}

// release sends the protocol's release: an unconditional DEL, or the Lua
// compare-and-delete.
func (l *lock) release() error {
	l.th.tr.release(l.th, l.key)
	if l.th.tr.sc.Protocol == "setnx-lua-del" {
		_, err := l.th.call("EVAL", compareAndDelete, "1", l.key, l.token)
		return err
	}
	_, err := l.th.call("DEL", l.key)
	return err
}

// seconds renders a lease for EX as the protocols do: rounded up, at
// least 1.
func seconds(ms int64) string {
	return strconv.FormatInt(max(1, (ms+999)/1000), 10)
}

// RealConfig is a search for the first violation against redis-server:
// one trial per seed, Workers trials side by side.
type RealConfig struct {
	Addr      string
	Base      protocols.Scenario // everything but the seed
	SeedStart uint64
	Trials    int // at most this many seeds
	Workers   int // trials side by side, each in its own database; 0: GOMAXPROCS (at most MaxWorkers)
}

// FirstViolationReal runs trials of cfg.Base for seeds SeedStart, ... on
// the real server until one of them shows a violation, Trials have run,
// or ctx ends. Result.Wall is the wall time from the start to the moment
// the violation happened.
func FirstViolationReal(ctx context.Context, cfg RealConfig) (*Result, error) {
	base, err := cfg.Base.Normalize()
	if err != nil {
		return nil, err
	}
	if err := Check(base); err != nil {
		return nil, err
	}
	if cfg.Trials < 1 {
		return nil, errors.New("baseline: trials must be at least 1")
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, MaxWorkers, cfg.Trials)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	res := &Result{Side: "real-redis", Workers: workers}
	var (
		mu       sync.Mutex
		firstErr error
		next     int
	)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= cfg.Trials || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				sc := cfg.Base
				sc.Seed = cfg.SeedStart + uint64(next)
				next++
				res.Runs++
				mu.Unlock()
				began := time.Now()
				t, err := RunTrial(ctx, cfg.Addr, w, sc)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
					cancel()
				case t.Violation != nil:
					at := began.Sub(start) + t.Wall
					if !res.Found || at < res.Wall {
						res.Found, res.Wall, res.Seed = true, at, sc.Seed
						res.Violation = t.Violation.String()
					}
					cancel()
				}
				if t != nil {
					res.Covered += t.Wall
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if !res.Found {
		res.Wall = time.Since(start)
	}
	return res, nil
}
