package locktest

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/bridge"
)

// TestGoRedisFailoverOptionsOnSingle: a lock given FailoverOptions (and
// no Options) runs on topology single with the same settings as on
// replicated: its OnConnect is called on both.
func TestGoRedisFailoverOptionsOnSingle(t *testing.T) {
	var connects atomic.Int64
	g := *plainGoRedis
	g.Name = "go-plain-failover-single"
	g.FailoverOptions = &redis.FailoverOptions{MasterName: "orders", ReadTimeout: time.Second,
		OnConnect: func(context.Context, *redis.Conn) error { connects.Add(1); return nil }}
	cfg := Config{GoRedis: &g, Topologies: []string{protocols.TopoReplicated, protocols.TopoSingle}}
	for _, topo := range cfg.Topologies {
		connects.Store(0)
		sc := protocols.Scenario{Seed: 1, Protocol: g.Name, Topology: topo, Clients: 2, Ops: 2}
		if _, err := EvaluateT(t, cfg, sc); err != nil {
			t.Fatal(err)
		}
		if connects.Load() == 0 {
			t.Errorf("topology %s: FailoverOptions.OnConnect never called", topo)
		}
	}
}

// TestHarmFieldsDocumented: go doc on locktest.Harm (an alias, which go
// doc does not expand) lists every field of model.Harm.
func TestHarmFieldsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "data.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE && g.Specs[0].(*ast.TypeSpec).Name.Name == "Harm" {
			text = g.Doc.Text()
		}
	}
	if text == "" {
		t.Fatal("no doc comment on type Harm in data.go")
	}
	h := reflect.TypeFor[model.Harm]()
	for i := range h.NumField() {
		f := h.Field(i)
		if !regexp.MustCompile(`(?m)^\s*` + f.Name + `\s+` + regexp.QuoteMeta(f.Type.String()) + `\b`).MatchString(text) {
			t.Errorf("Harm's doc does not list field %s %s:\n%s", f.Name, f.Type, text)
		}
	}
}

// TestGoRedisOptionRefusalNamesFieldsSet: an option the bridge refuses
// is refused naming exactly the fields the user set, with the bridge's
// reason, not the group of fields the bridge checks together.
func TestGoRedisOptionRefusalNamesFieldsSet(t *testing.T) {
	creds := func(context.Context) (string, string, error) { return "", "", nil }
	for _, tc := range []struct {
		opts     *redis.Options
		failover *redis.FailoverOptions
		fields   string
	}{
		{opts: &redis.Options{Username: "app"}, fields: "Options.Username"},
		{opts: &redis.Options{Password: "secret", Username: "app", ReadTimeout: time.Second}, fields: "Options.Username, Options.Password"},
		{opts: &redis.Options{CredentialsProviderContext: creds}, fields: "Options.CredentialsProviderContext"},
		{opts: &redis.Options{UnstableResp3: true}, fields: "Options.UnstableResp3"},
		{opts: &redis.Options{ClientSideCacheConfig: &redis.ClientSideCacheConfig{}}, fields: "Options.ClientSideCacheConfig"},
		{failover: &redis.FailoverOptions{MasterName: "orders", SentinelPassword: "secret"}, fields: "FailoverOptions.SentinelPassword"},
		{failover: &redis.FailoverOptions{MasterName: "orders", UseDisconnectedReplicas: true}, fields: "FailoverOptions.UseDisconnectedReplicas"},
		{failover: &redis.FailoverOptions{MasterName: "orders", ReplicaOnly: true}, fields: "FailoverOptions.ReplicaOnly"},
	} {
		g := *plainGoRedis
		g.Options, g.FailoverOptions = tc.opts, tc.failover
		// The reason is the bridge's, whatever group it names.
		bridgeErr := bridge.CheckOptions(tc.opts)
		if bridgeErr == nil {
			bridgeErr = bridge.CheckFailoverOptions(tc.failover)
		}
		if bridgeErr == nil {
			t.Fatalf("%s: the bridge accepts it", tc.fields)
		}
		_, reason, _ := strings.Cut(bridgeErr.Error(), ": ")
		_, err := g.protocol()
		want := "locktest: Config.GoRedis " + g.Name + ": " + tc.fields + ": " + reason
		if err == nil || err.Error() != want {
			t.Errorf("got  %v\nwant %s", err, want)
		}
	}
}
