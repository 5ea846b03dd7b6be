package bridge

import (
	"cmp"
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// CheckOptions refuses client options the bridge cannot honour, naming
// the field: the address, dialer and transport are the bridge's, and
// the simulated nodes speak RESP2 on database 0 with no password.
// Everything else (timeouts, retries and their backoff, pool size and
// pool timeout, idle and lifetime limits, OnConnect, ClientName) is
// honoured.
func CheckOptions(o *redis.Options) error {
	if o == nil {
		return nil
	}
	switch {
	case o.Addr != "":
		return errors.New("Options.Addr: the bridge connects each client to its simulated node; leave Addr empty")
	case o.Network != "" && o.Network != "tcp":
		return errors.New("Options.Network: the simulated nodes listen on tcp only")
	case o.Dialer != nil:
		return errors.New("Options.Dialer: the bridge dials through the simulated network; leave Dialer nil")
	case o.TLSConfig != nil:
		return errors.New("Options.TLSConfig: TLS is not simulated")
	case o.Protocol == 3 || o.UnstableResp3:
		return errors.New("Options.Protocol: the simulated nodes speak RESP2 only (Protocol 2)")
	case o.Username != "" || o.Password != "" || o.CredentialsProvider != nil || o.CredentialsProviderContext != nil || o.StreamingCredentialsProvider != nil:
		return errors.New("Options.Username, Password, CredentialsProvider: the simulated nodes have no password")
	case o.DB != 0:
		return errors.New("Options.DB: the simulated nodes hold database 0 only")
	case o.ClientSideCache != nil || o.ClientSideCacheConfig != nil:
		return errors.New("Options.ClientSideCache: client-side caching needs RESP3, which the simulated nodes do not speak")
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
// honour, naming the field: the sentinel's address and the dialer are
// the bridge's, the simulated sentinel answers for the master only (no
// reads from replicas), and the nodes speak RESP2 on database 0 with no
// password. MasterName, timeouts, retries, pool settings are honoured.
func CheckFailoverOptions(o *redis.FailoverOptions) error {
	if o == nil {
		return nil
	}
	switch {
	case len(o.SentinelAddrs) > 0:
		return errors.New("FailoverOptions.SentinelAddrs: the bridge connects the client to the simulated sentinel; leave SentinelAddrs empty")
	case o.Dialer != nil:
		return errors.New("FailoverOptions.Dialer: the bridge dials through the simulated network; leave Dialer nil")
	case o.TLSConfig != nil:
		return errors.New("FailoverOptions.TLSConfig: TLS is not simulated")
	case o.Protocol == 3 || o.UnstableResp3:
		return errors.New("FailoverOptions.Protocol: the simulated nodes speak RESP2 only (Protocol 2)")
	case o.Username != "" || o.Password != "" || o.SentinelUsername != "" || o.SentinelPassword != "" || o.CredentialsProvider != nil || o.CredentialsProviderContext != nil || o.StreamingCredentialsProvider != nil:
		return errors.New("FailoverOptions.Username, Password, SentinelPassword, CredentialsProvider: the simulated nodes and sentinel have no password")
	case o.DB != 0:
		return errors.New("FailoverOptions.DB: the simulated nodes hold database 0 only")
	case o.RouteByLatency || o.RouteRandomly || o.ReplicaOnly || o.UseDisconnectedReplicas:
		return errors.New("FailoverOptions.RouteByLatency, RouteRandomly, ReplicaOnly: the simulated sentinel lists no replicas; commands go to the master")
	}
	return nil
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
