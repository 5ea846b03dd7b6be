package bridge

import (
	"cmp"
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// CheckOptions refuses client options the bridge cannot honour, naming
// the fields set: the address, dialer and transport are the bridge's, and
// the simulated nodes speak RESP2 on database 0 with no password.
// Everything else (timeouts, retries and their backoff, pool size and
// pool timeout, idle and lifetime limits, OnConnect, ClientName) is
// honoured.
func CheckOptions(o *redis.Options) error {
	if o == nil {
		return nil
	}
	return refuse("Options", []rule{
		{"the bridge connects each client to its simulated node; leave Addr empty", []field{{"Addr", o.Addr != ""}}},
		{"the simulated nodes listen on tcp only", []field{{"Network", o.Network != "" && o.Network != "tcp"}}},
		{"the bridge dials through the simulated network; leave Dialer nil", []field{{"Dialer", o.Dialer != nil}}},
		{"TLS is not simulated", []field{{"TLSConfig", o.TLSConfig != nil}}},
		{"the simulated nodes speak RESP2 only (Protocol 2)", []field{{"Protocol", o.Protocol == 3}, {"UnstableResp3", o.UnstableResp3}}},
		{"the simulated nodes have no password", []field{{"Username", o.Username != ""}, {"Password", o.Password != ""},
			{"CredentialsProvider", o.CredentialsProvider != nil}, {"CredentialsProviderContext", o.CredentialsProviderContext != nil},
			{"StreamingCredentialsProvider", o.StreamingCredentialsProvider != nil}}},
		{"the simulated nodes hold database 0 only", []field{{"DB", o.DB != 0}}},
		{"client-side caching needs RESP3, which the simulated nodes do not speak", []field{{"ClientSideCache", o.ClientSideCache != nil},
			{"ClientSideCacheConfig", o.ClientSideCacheConfig != nil}}},
	})
}

// rule is a reason to refuse options, and the fields it refuses.
type rule struct {
	reason string
	fields []field
}

// field is an option field and whether the user set it.
type field struct {
	name string
	set  bool
}

// refuse returns the first rule's refusal that a set field breaks,
// naming the fields of typ set ("Options.Username, Options.Password:
// the simulated nodes have no password"), or nil.
func refuse(typ string, rules []rule) error {
	for _, r := range rules {
		var set []string
		for _, f := range r.fields {
			if f.set {
				set = append(set, typ+"."+f.name)
			}
		}
		if len(set) > 0 {
			return errors.New(strings.Join(set, ", ") + ": " + r.reason)
		}
	}
	return nil
}

// clientOptions is the options of a client to addr: the user's, with
// the bridge's address, dialer and handshake, and a pool large enough
// that go-redis never waits for a connection (its wait uses timers from
// a process-wide sync.Pool, which a bubble may not share with another):
// poolGate enforces the user's PoolSize and PoolTimeout instead.
func clientOptions(user *redis.Options, addr string, dial func(context.Context, string, string) (net.Conn, error)) *redis.Options {
	o := &redis.Options{}
	if user != nil {
		*o = *user
	}
	o.Addr, o.Network, o.Dialer, o.Protocol, o.DisableIdentity = addr, "", dial, 2, true
	o.PoolSize = poolSize
	o.ReadBufferSize = cmp.Or(o.ReadBufferSize, readBufferSize)
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return o
}

// CheckFailoverOptions refuses failover options the bridge cannot
// honour, naming the fields set: the sentinel's address and the dialer
// are the bridge's, the simulated sentinel answers for the master only
// (no reads from replicas), and the nodes speak RESP2 on database 0 with
// no password. MasterName, timeouts, retries, pool settings are honoured.
func CheckFailoverOptions(o *redis.FailoverOptions) error {
	if o == nil {
		return nil
	}
	return refuse("FailoverOptions", []rule{
		{"the bridge connects the client to the simulated sentinel; leave SentinelAddrs empty", []field{{"SentinelAddrs", len(o.SentinelAddrs) > 0}}},
		{"the bridge dials through the simulated network; leave Dialer nil", []field{{"Dialer", o.Dialer != nil}}},
		{"TLS is not simulated", []field{{"TLSConfig", o.TLSConfig != nil}}},
		{"the simulated nodes speak RESP2 only (Protocol 2)", []field{{"Protocol", o.Protocol == 3}, {"UnstableResp3", o.UnstableResp3}}},
		{"the simulated nodes and sentinel have no password", []field{{"Username", o.Username != ""}, {"Password", o.Password != ""},
			{"SentinelUsername", o.SentinelUsername != ""}, {"SentinelPassword", o.SentinelPassword != ""},
			{"CredentialsProvider", o.CredentialsProvider != nil}, {"CredentialsProviderContext", o.CredentialsProviderContext != nil},
			{"StreamingCredentialsProvider", o.StreamingCredentialsProvider != nil}}},
		{"the simulated nodes hold database 0 only", []field{{"DB", o.DB != 0}}},
		{"the simulated sentinel lists no replicas; commands go to the master", []field{{"RouteByLatency", o.RouteByLatency},
			{"RouteRandomly", o.RouteRandomly}, {"ReplicaOnly", o.ReplicaOnly}, {"UseDisconnectedReplicas", o.UseDisconnectedReplicas}}},
	})
}

// failoverOptions is the Sentinel client's options: the user's
// timeouts, retries and pool settings, with the bridge's sentinel,
// dialer and handshake.
func failoverOptions(user *redis.Options, fo *redis.FailoverOptions, dial func(context.Context, string, string) (net.Conn, error)) *redis.FailoverOptions {
	o := &redis.FailoverOptions{}
	if fo != nil {
		*o = *fo
	} else if u := user; u != nil {
		o.ClientName, o.OnConnect = u.ClientName, u.OnConnect
		o.MaxRetries, o.MinRetryBackoff, o.MaxRetryBackoff = u.MaxRetries, u.MinRetryBackoff, u.MaxRetryBackoff
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = u.DialTimeout, u.ReadTimeout, u.WriteTimeout
		o.ContextTimeoutEnabled, o.PoolFIFO, o.PoolTimeout = u.ContextTimeoutEnabled, u.PoolFIFO, u.PoolTimeout
		o.MinIdleConns, o.MaxIdleConns, o.MaxActiveConns = u.MinIdleConns, u.MaxIdleConns, u.MaxActiveConns
		o.ConnMaxIdleTime, o.ConnMaxLifetime = u.ConnMaxIdleTime, u.ConnMaxLifetime
	}
	if o.MasterName == "" {
		o.MasterName = MasterName
	}
	o.SentinelAddrs = []string{SentinelAddr}
	o.Protocol, o.Dialer, o.DisableIdentity, o.PoolSize = 2, dial, true, poolSize
	o.ReadBufferSize = cmp.Or(o.ReadBufferSize, readBufferSize)
	return o
}

// masterOptions is the redis.Options go-redis's failover client builds
// from fo for its connections to the master (FailoverOptions.clientOptions,
// unexported: every field the two types share, FailingTimeoutSeconds
// aside), so that clients of a topology without the sentinel get the
// settings a Failover client has. Addr and the maintenance
// notifications are the bridge's; the fields CheckFailoverOptions refuses
// never reach here.
func masterOptions(fo *redis.FailoverOptions) *redis.Options {
	return &redis.Options{
		ClientName: fo.ClientName,
		Dialer:     fo.Dialer,
		OnConnect:  fo.OnConnect,

		DB:                           fo.DB,
		Protocol:                     fo.Protocol,
		Username:                     fo.Username,
		Password:                     fo.Password,
		CredentialsProvider:          fo.CredentialsProvider,
		CredentialsProviderContext:   fo.CredentialsProviderContext,
		StreamingCredentialsProvider: fo.StreamingCredentialsProvider,

		MaxRetries:      fo.MaxRetries,
		MinRetryBackoff: fo.MinRetryBackoff,
		MaxRetryBackoff: fo.MaxRetryBackoff,

		ReadBufferSize:          fo.ReadBufferSize,
		WriteBufferSize:         fo.WriteBufferSize,
		PipelineReadBufferSize:  fo.PipelineReadBufferSize,
		PipelineWriteBufferSize: fo.PipelineWriteBufferSize,
		PipelinePoolSize:        fo.PipelinePoolSize,
		AutoPipelineOptions:     fo.AutoPipelineOptions,

		DialTimeout:           fo.DialTimeout,
		DialerRetries:         fo.DialerRetries,
		DialerRetryTimeout:    fo.DialerRetryTimeout,
		DialerRetryBackoff:    fo.DialerRetryBackoff,
		ReadTimeout:           fo.ReadTimeout,
		WriteTimeout:          fo.WriteTimeout,
		ContextTimeoutEnabled: fo.ContextTimeoutEnabled,

		PoolFIFO:              fo.PoolFIFO,
		PoolSize:              fo.PoolSize,
		MaxConcurrentDials:    fo.MaxConcurrentDials,
		PoolTimeout:           fo.PoolTimeout,
		MinIdleConns:          fo.MinIdleConns,
		MaxIdleConns:          fo.MaxIdleConns,
		MaxActiveConns:        fo.MaxActiveConns,
		ConnMaxIdleTime:       fo.ConnMaxIdleTime,
		ConnMaxLifetime:       fo.ConnMaxLifetime,
		ConnMaxLifetimeJitter: fo.ConnMaxLifetimeJitter,

		TLSConfig: fo.TLSConfig,

		DisableIdentity:           fo.DisableIdentity,
		DisableIndentity:          fo.DisableIndentity,
		IdentitySuffix:            fo.IdentitySuffix,
		UnstableResp3:             fo.UnstableResp3,
		PushNotificationProcessor: fo.PushNotificationProcessor,
	}
}

// poolGate is the user's PoolSize in force: at most size commands (or
// pipelines) of one client hold a connection at once; one more waits up
// to timeout (go-redis's PoolTimeout) for a turn and fails with
// redis.ErrPoolTimeout, as go-redis's pool does. Its channel and timers
// belong to the run's bubble.
type poolGate struct {
	turns   chan struct{}
	timeout time.Duration
}

// gate installs the user's PoolSize on c, when set, with c's
// PoolTimeout as go-redis fills it (ReadTimeout plus a second by
// default).
func gate(c *redis.Client, user *redis.Options) {
	if user == nil || user.PoolSize <= 0 {
		return
	}
	c.AddHook(&poolGate{turns: make(chan struct{}, user.PoolSize), timeout: c.Options().PoolTimeout})
}

func (g *poolGate) acquire(ctx context.Context) error {
	select {
	case g.turns <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(g.timeout)
	defer t.Stop()
	select {
	case g.turns <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return redis.ErrPoolTimeout
	}
}

// held marks a context whose command already holds a turn of the gate:
// go-redis runs a new connection's handshake (HELLO, OnConnect) through
// the same hooks, inside the command that dialed it.
type held struct{}

// do runs next with a turn of the gate.
func (g *poolGate) do(ctx context.Context, next func(context.Context) error, fail func(error)) error {
	if ctx.Value(held{}) == g {
		return next(ctx)
	}
	if err := g.acquire(ctx); err != nil {
		fail(err)
		return err
	}
	defer func() { <-g.turns }()
	return next(context.WithValue(ctx, held{}, g))
}

func (g *poolGate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *poolGate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return g.do(ctx, func(ctx context.Context) error { return next(ctx, cmd) }, cmd.SetErr)
	}
}

func (g *poolGate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return g.do(ctx, func(ctx context.Context) error { return next(ctx, cmds) }, func(err error) {
			for _, c := range cmds {
				c.SetErr(err)
			}
		})
	}
}
