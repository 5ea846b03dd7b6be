package protocols

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/suggest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// ScenarioVersion is bumped whenever a field's meaning changes.
const ScenarioVersion = 1

// DefaultWorkload is the workload of a scenario that names none.
const DefaultWorkload = "unique-name"

// Scenario is everything one run depends on. Run is a pure function of it.
type Scenario struct {
	Version  int    `json:"version"`
	Seed     uint64 `json:"seed"`
	Protocol string `json:"protocol"`
	// ProtocolFile is the lock a protocol file describes, when the
	// scenario runs one (Protocol is then its name): the description is
	// embedded, so the scenario runs without the file.
	ProtocolFile *ProtocolFile     `json:"protocol_file,omitempty"`
	Workload     string            `json:"workload"`
	Clients      int               `json:"clients"`
	ClientNames  []string          `json:"client_names,omitempty"` // default c1..cN; shrinking keeps survivors' names
	Threads      int               `json:"threads"`
	Ops          int               `json:"ops"`
	LeaseMs      int64             `json:"lease_ms"`
	WorkMs       int64             `json:"work_ms"`
	ThinkMs      int64             `json:"think_ms"`
	StaggerMs    int64             `json:"stagger_ms,omitempty"` // client i starts i*StaggerMs late
	RetryMs      int64             `json:"retry_ms"`
	Attempts     int               `json:"attempts"`
	Stock        int               `json:"stock,omitempty"`
	TimeoutMs    int64             `json:"timeout_ms"`
	HorizonMs    int64             `json:"horizon_ms"`
	Network      sim.NetworkConfig `json:"network"`
	Topology     string            `json:"topology"`
	Nodes        int               `json:"nodes,omitempty"` // replicas (replicated) or masters (independent)
	Persistence  string            `json:"persistence,omitempty"`
	ReplLagMs    [2]int64          `json:"repl_lag_ms,omitempty"`   // replication lag range
	DownAfterMs  int64             `json:"down_after_ms,omitempty"` // sentinel
	DiscoveryMs  int64             `json:"discovery_ms,omitempty"`  // clients learn a new master within
	FaultKinds   []string          `json:"fault_kinds,omitempty"`
	Intensity    float64           `json:"intensity,omitempty"`
	// AnchorPct is the share (percent) of generated faults anchored to a
	// client's operation; 0: the default (DefaultAnchorPct), -1: none.
	AnchorPct int    `json:"anchor_pct,omitempty"`
	Arrival   string `json:"arrival,omitempty"`    // closed ("", the default) or open loop
	DataApart bool   `json:"data_apart,omitempty"` // protected data on its own node, off the lock's master
	// Swarm draws every parameter left unset (a subset of the fault kinds,
	// intensity, sentinel timing, work, think time, stagger, arrival,
	// clients, anchor share) from the seed; Normalize writes the draws
	// into the scenario, so the result replays without Swarm.
	Swarm     bool          `json:"swarm,omitempty"`
	Faults    []trace.Fault `json:"faults"`
	MaxEvents int64         `json:"max_events,omitempty"` // event budget; 0 = DefaultEventBudget
	// Liveness asks the checker for its liveness checks too (after the
	// last fault heals: lost wake-ups, keys renewed after release, orphan
	// keys); off by default.
	Liveness    bool `json:"liveness,omitempty"`
	faultsDrawn bool
}

// DefaultClients is the number of client processes of a scenario that
// does not say.
const DefaultClients = 3

// DefaultAnchorPct is the share of generated faults anchored to an
// operation when the scenario does not say.
const DefaultAnchorPct = 50

// Arrival patterns: a closed loop thinks between operations; an open
// loop starts operations at drawn arrival times, late or not.
const (
	ArrivalClosed = "closed"
	ArrivalOpen   = "open"
)

// Default returns the default scenario of protocol on workload.
func Default(protocol, workload string, seed uint64) Scenario {
	return Scenario{Seed: seed, Protocol: protocol, Workload: workload}
}

// Normalize fills every unset field with its default, checks the scenario
// and, when fault kinds are named but no schedule is given, draws the
// schedule from the seed. The result is explicit: running it again gives
// the same trace.
func (sc Scenario) Normalize() (Scenario, error) {
	if sc.Version == 0 {
		sc.Version = ScenarioVersion
	}
	if sc.Version != ScenarioVersion {
		return sc, fmt.Errorf("scenario version %d not supported (this locksim reads %d)", sc.Version, ScenarioVersion)
	}
	if f := sc.ProtocolFile; f != nil {
		if err := f.Description.Validate(); err != nil {
			return sc, fmt.Errorf("%s: %v", f.Path, err)
		}
		if sc.Protocol == "" {
			sc.Protocol = f.Description.Name
		}
		if sc.Protocol != f.Description.Name {
			return sc, fmt.Errorf("the scenario names protocol %q, but its protocol file %s describes %q", sc.Protocol, f.Path, f.Description.Name)
		}
	}
	p, err := sc.LookupProtocol()
	if err != nil {
		return sc, err
	}
	if sc.Workload == "" {
		sc.Workload = DefaultWorkload
	}
	wl, err := LookupWorkload(sc.Workload)
	if err != nil {
		return sc, err
	}
	sc.chooseTopology(p)
	if sc.Swarm {
		sc.drawSwarm(p, wl)
	}
	sc.drawSentinel(wl)
	// The draws are in the scenario now; a draw of 0 (no stagger) must not
	// be drawn again when the normalized scenario is normalized again.
	sc.Swarm = false
	sc.fillDefaults(p, wl)
	if err := sc.normalizeTopology(p); err != nil {
		return sc, err
	}
	if usesStock(sc.Workload) && sc.Stock == 0 {
		sc.Stock = sc.Clients * sc.Threads * sc.Ops
	}
	if err := sc.validate(); err != nil {
		return sc, err
	}
	if len(sc.Faults) == 0 && len(sc.FaultKinds) > 0 {
		faults, err := GenerateFaults(sc)
		if err != nil {
			return sc, err
		}
		sc.Faults = faults
	}
	if sc.Faults == nil {
		sc.Faults = []trace.Fault{}
	}
	return sc, nil
}

// fillDefaults sets each unset size and timing to the protocol's or the
// workload's default.
func (sc *Scenario) fillDefaults(p Protocol, wl Workload) {
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if sc.Clients == 0 {
		sc.Clients = DefaultClients
	}
	if sc.Threads == 0 {
		sc.Threads = 1
	}
	if sc.Ops == 0 {
		sc.Ops = cmp.Or(wl.Ops, 4)
	}
	if sc.Attempts == 0 {
		sc.Attempts = 200
	}
	def(&sc.LeaseMs, p.Lease.Milliseconds())
	if sc.WorkMs == 0 {
		sc.WorkMs = wl.WorkMs
	}
	def(&sc.ThinkMs, cmp.Or(wl.ThinkMs, 200))
	def(&sc.RetryMs, 500)
	def(&sc.TimeoutMs, 3000)
	def(&sc.HorizonMs, int64(time.Hour/time.Millisecond))
	if sc.Network == (sim.NetworkConfig{}) {
		sc.Network = sim.DefaultNetwork()
	}
}

// validate checks the sizes, timings and names of a filled scenario.
func (sc Scenario) validate() error {
	switch {
	case sc.Clients < 1 || sc.Clients > 1000:
		return errors.New("clients must be between 1 and 1000")
	case sc.Threads < 1 || sc.Threads > 64:
		return errors.New("threads must be between 1 and 64")
	case sc.Ops < 1 || sc.Ops > 100000:
		return errors.New("ops must be between 1 and 100000")
	case sc.LeaseMs < 1, sc.WorkMs < 0, sc.ThinkMs < 0, sc.RetryMs < 1, sc.TimeoutMs < 0, sc.HorizonMs < 1, sc.StaggerMs < 0:
		return errors.New("durations must be positive")
	case sc.Network.LossRate < 0 || sc.Network.LossRate > 1:
		return errors.New("network loss rate must be between 0 and 1")
	case sc.AnchorPct < -1 || sc.AnchorPct > 100:
		return errors.New("anchor_pct must be between 0 and 100 (-1: no anchored faults)")
	case sc.Arrival != "" && sc.Arrival != ArrivalClosed && sc.Arrival != ArrivalOpen:
		hint := ""
		if best, ok := suggest.Nearest(sc.Arrival, []string{ArrivalClosed, ArrivalOpen}); ok {
			hint = fmt.Sprintf(" (did you mean %q?)", best)
		}
		return fmt.Errorf("arrival must be %s or %s, not %q%s", ArrivalClosed, ArrivalOpen, sc.Arrival, hint)
	}
	if err := sc.validateNumbers(); err != nil {
		return err
	}
	if len(sc.ClientNames) == 0 {
		return nil
	}
	if len(sc.ClientNames) != sc.Clients {
		return fmt.Errorf("client_names has %d names for %d clients", len(sc.ClientNames), sc.Clients)
	}
	seen := map[string]bool{}
	for _, n := range sc.ClientNames {
		if n == "" || seen[n] || strings.ContainsAny(n, "/#<->") {
			return fmt.Errorf("client name %q is empty, repeated or has one of / # < - >", n)
		}
		seen[n] = true
	}
	return nil
}

// Validate checks every field of sc as Normalize does, and the fault
// kinds it names, without drawing a fault schedule: the one validation
// of a scenario's fields, for callers that draw scenarios of their own
// (locktest) and must refuse settings no run could take.
func (sc Scenario) Validate() error {
	kinds := sc.FaultKinds
	sc.FaultKinds = nil
	if _, err := sc.Normalize(); err != nil {
		return err
	}
	for _, k := range kinds {
		if err := checkFaultKind(k); err != nil {
			return err
		}
	}
	return nil
}

// LookupProtocol returns the scenario's protocol: the one its protocol
// file describes, or the catalog's of its name.
func (sc Scenario) LookupProtocol() (Protocol, error) {
	if sc.ProtocolFile != nil {
		return sc.ProtocolFile.Protocol(), nil
	}
	return Lookup(sc.Protocol)
}

// ClientName is the default process name of client i (0-based).
func ClientName(i int) string { return numbered(&clientNames, "c", i) }

// clientNames and threadNames are the first names of each, formatted
// once for every run.
var clientNames, threadNames = numberedNames("c"), numberedNames("t")

// numberedNames is prefix followed by 1, 2, ...
func numberedNames(prefix string) (names [16]string) {
	for i := range names {
		names[i] = prefix + strconv.Itoa(i+1)
	}
	return names
}

// numbered is the name of the i-th (0-based) of names, prefix followed by i+1.
func numbered(names *[16]string, prefix string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return prefix + strconv.Itoa(i+1)
}

// Client is the process name of client i (0-based) in sc.
func (sc Scenario) Client(i int) string {
	if len(sc.ClientNames) > 0 {
		return sc.ClientNames[i]
	}
	return ClientName(i)
}

// activeWindow estimates how long the clients keep working, so that
// generated faults land while locks are in use.
func (sc Scenario) activeWindow() time.Duration {
	per := sc.WorkMs + sc.ThinkMs + 10
	return time.Duration(int64(sc.Ops)*per+1000) * time.Millisecond
}

// ParseScenario reads a scenario file: one JSON object of Scenario's
// fields, each known and given once. An unknown field (at any depth) or a
// name that is not a protocol, workload, topology, persistence, arrival
// or fault kind fails with one line naming the field and the nearest
// valid name. It does not normalize: Normalize checks the numbers.
func ParseScenario(b []byte) (Scenario, error) {
	var sc Scenario
	if err := decodeKnownFields(b, &sc, "scenario", "scenario field ", func(err error, _ bool) error {
		return fmt.Errorf("scenario: %v", err)
	}); err != nil {
		return Scenario{}, err
	}
	if err := sc.CheckNames(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// decodeKnownFields decodes b, one JSON object each of whose fields (at
// any depth) v's type knows, into v. An unknown field fails with
// checkFields' line (fieldPrefix starts it); phrase words every other
// failure: a JSON decode error (decoding) or a wrong shape, where noun
// names the object ("data after the <noun>'s closing brace").
func decodeKnownFields(b []byte, v any, noun, fieldPrefix string, phrase func(err error, decoding bool) error) error {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return phrase(err, true)
	}
	if _, err := dec.Token(); err != io.EOF {
		return phrase(fmt.Errorf("data after the %s's closing brace", noun), false)
	}
	if _, ok := raw.(map[string]any); !ok {
		return phrase(errors.New("not a JSON object"), false)
	}
	if err := checkFields(raw, reflect.TypeOf(v).Elem(), fieldPrefix, ""); err != nil {
		return err
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(v); err != nil {
		return phrase(err, true)
	}
	return nil
}

// checkFields refuses a key of v that is not a JSON field of t, and walks
// into objects and lists; label starts the message ("scenario field ").
func checkFields(v any, t reflect.Type, label, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil // a type with its own decoding: json decides
	}
	switch v := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return nil // a map: json decides
		}
		fields := jsonFields(t)
		names := make([]string, 0, len(fields))
		for n := range fields {
			names = append(names, n)
		}
		slices.Sort(names)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s%q is unknown%s", label, path+k, suggest.Hint(k, names))
			}
			if err := checkFields(v[k], ft, label, path+k+"."); err != nil {
				return err
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, e := range v {
			if err := checkFields(e, t.Elem(), label, fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of struct t's exported fields to their
// types; an embedded struct without a name of its own adds its fields.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			maps.Copy(out, jsonFields(f.Type))
			continue
		}
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// CheckNames checks every name a scenario gives against the catalog:
// protocol, workload, topology, persistence, arrival, fault kinds and
// each explicit fault's kind. An unknown one fails naming its field and
// the nearest valid name.
func (sc Scenario) CheckNames() error {
	unknown := func(field, what, name string, valid []string) error {
		return fmt.Errorf("scenario field %q: %v", field, suggest.Unknown(what, name, valid))
	}
	if _, err := sc.LookupProtocol(); err != nil && sc.ProtocolFile == nil {
		var names []string
		for _, p := range Protocols() {
			names = append(names, p.Name)
		}
		return unknown("protocol", "protocol", sc.Protocol, names)
	}
	if _, err := LookupWorkload(sc.Workload); err != nil && sc.Workload != "" {
		var names []string
		for _, w := range Workloads() {
			names = append(names, w.Name)
		}
		return unknown("workload", "workload", sc.Workload, names)
	}
	if sc.Topology != "" && !slices.Contains(Topologies(), sc.Topology) {
		return unknown("topology", "topology", sc.Topology, Topologies())
	}
	if persist := []string{sim.PersistNone, sim.PersistEverysec, sim.PersistAlways}; sc.Persistence != "" && !slices.Contains(persist, sc.Persistence) {
		return unknown("persistence", "persistence", sc.Persistence, persist)
	}
	if arrivals := []string{ArrivalClosed, ArrivalOpen}; sc.Arrival != "" && !slices.Contains(arrivals, sc.Arrival) {
		return unknown("arrival", "arrival", sc.Arrival, arrivals)
	}
	kinds := trace.KindNames()
	for i, k := range sc.FaultKinds {
		if k != "none" && !slices.Contains(kinds, k) {
			return unknown(fmt.Sprintf("fault_kinds[%d]", i), "fault kind", k, kinds)
		}
	}
	for i, f := range sc.Faults {
		if !slices.Contains(kinds, f.Kind) {
			return unknown(fmt.Sprintf("faults[%d].kind", i), "fault kind", f.Kind, kinds)
		}
	}
	return nil
}

// EstimatedEvents is what the scenario's size costs its protocol in
// simulator events (clients x threads x ops at the protocol's cost per
// operation, contention and work included), before any budget caps it:
// a run needs about this many unless its budget stops it first, and its
// threads cost their start-up either way. Replay refuses a scenario
// whose estimate is over its budget without running it.
func (sc Scenario) EstimatedEvents() int64 {
	n := sc.stepsNeeded()
	if n > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(n)
}
