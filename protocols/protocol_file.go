package protocols

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/suggest"
	"github.com/locksim/locksim/sim/luafast"
)

// A protocol file describes a lock the way most teams write one: an
// acquire, a release and perhaps a renew, each one Redis command or one
// Lua script with its KEYS and ARGV templates, how to read each reply,
// the lease, the retry policy and the token (docs/protocol-files.md).
// This file is the one place that defines the description's fields and
// their validation; protocol_file_lock.go runs it.

// ProtocolFile is a lock described in a file: the path as the user gave
// it (replay commands name it) and the description the file held, which
// the scenario embeds, so that a trace replays without the file.
type ProtocolFile struct {
	Path        string              `json:"path"`
	Description ProtocolDescription `json:"description"`
	probe       *fileProbe          // set on the copy that the load's fault-free run runs
}

// ProtocolDescription is a protocol file's content.
type ProtocolDescription struct {
	Name    string `json:"name"`
	Source  string `json:"source,omitempty"`  // where the lock comes from
	Summary string `json:"summary,omitempty"` // one line, as `locksim list` shows a protocol
	LeaseMs int64  `json:"lease_ms"`          // the default lease; --lease-ms overrides it
	// Token is the template of the value an acquire stores, drawn anew
	// for each acquire: {uuid}, {hex}, {thread}, {client}, or constant
	// text.
	Token   string       `json:"token"`
	Acquire AcquireStep  `json:"acquire"`
	Release ReleaseStep  `json:"release"`
	Renew   *RenewStep   `json:"renew,omitempty"` // nil: no renewal
	Retry   *RetryPolicy `json:"retry,omitempty"` // nil: one try per acquire (the application retries)
}

// Call is one Redis command, or one Lua script sent with EVAL (EVALSHA,
// falling back to EVAL on NOSCRIPT, with evalsha): exactly one of Command
// and Script. Command, Keys and Argv are templates of {key}, {token},
// {lease_ms} and {lease_s}.
type Call struct {
	Command []string `json:"command,omitempty"`
	Script  Script   `json:"script,omitempty"`
	Keys    []string `json:"keys,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	EvalSHA bool     `json:"evalsha,omitempty"`
}

// AcquireStep is the acquire: the replies that mean the lock was taken
// and those that mean another client holds it; Otherwise says what any
// other reply (a Redis error included) means: "error" (the default),
// "acquired" or "held".
type AcquireStep struct {
	Call
	Acquired  []ReplyValue `json:"acquired"`
	Held      []ReplyValue `json:"held"`
	Otherwise string       `json:"otherwise,omitempty"`
}

// ReleaseStep is the release: the replies that mean the lock was
// released and those that mean it was not the caller's (or was gone);
// OwnerChecked says whether the release deletes only the caller's own
// key, which it must then name by {token}.
type ReleaseStep struct {
	Call
	Released     []ReplyValue `json:"released"`
	NotHeld      []ReplyValue `json:"not_held"`
	Otherwise    string       `json:"otherwise,omitempty"`
	OwnerChecked bool         `json:"owner_checked"`
}

// RenewStep is the renewal a thread of the holder's process sends every
// EveryMs while the lock is held, until a reply says the lock is no
// longer the holder's, an error, or the release.
type RenewStep struct {
	Call
	EveryMs   int64        `json:"every_ms"`
	Renewed   []ReplyValue `json:"renewed"`
	NotHeld   []ReplyValue `json:"not_held"`
	Otherwise string       `json:"otherwise,omitempty"`
}

// RetryPolicy is how an acquire retries while another client holds the
// lock: every IntervalMs plus a jitter drawn up to JitterMs, giving up
// after GiveUpMs or Attempts tries (at least one of the two).
type RetryPolicy struct {
	IntervalMs int64 `json:"interval_ms"`
	JitterMs   int64 `json:"jitter_ms,omitempty"`
	GiveUpMs   int64 `json:"give_up_ms,omitempty"`
	Attempts   int   `json:"attempts,omitempty"`
}

// Script is a Lua script, given in the file as one string or as a list
// of lines (joined with newlines); it is kept as its lines.
type Script []string

// Body is the script's text.
func (s Script) Body() string { return strings.Join(s, "\n") }

// UnmarshalJSON reads a string or a list of strings.
func (s *Script) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = strings.Split(one, "\n")
		return nil
	}
	var lines []json.RawMessage
	if err := json.Unmarshal(b, &lines); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(rawKind(b)), Type: reflect.TypeFor[Script]()}
	}
	out := make(Script, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &out[i]); err != nil {
			return &json.UnmarshalTypeError{Value: jsonKind(rawKind(l)), Type: reflect.TypeFor[string]()}
		}
	}
	*s = out
	return nil
}

// ReplyValue is one Redis reply a step's reading names: a string (a
// status or bulk reply of that text), an integer (an integer reply; Lua's
// true is 1) or null (a nil reply; Lua's false).
type ReplyValue struct {
	Kind byte // 0 nil, ':' integer, '$' text
	Int  int64
	Text string
}

// UnmarshalJSON reads null, an integer or a string.
func (v *ReplyValue) UnmarshalJSON(b []byte) error {
	switch b = bytes.TrimSpace(b); {
	case string(b) == "null":
		*v = ReplyValue{}
		return nil
	case len(b) > 0 && b[0] == '"':
		v.Kind = '$'
		return json.Unmarshal(b, &v.Text)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(rawKind(b)), Type: reflect.TypeFor[ReplyValue]()}
	}
	*v = ReplyValue{Kind: ':', Int: n}
	return nil
}

// MarshalJSON writes what UnmarshalJSON reads.
func (v ReplyValue) MarshalJSON() ([]byte, error) {
	switch v.Kind {
	case ':':
		return strconv.AppendInt(nil, v.Int, 10), nil
	case '$':
		return json.Marshal(v.Text)
	}
	return []byte("null"), nil
}

func (v ReplyValue) String() string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// The placeholders each template may use.
var (
	argPlaceholders   = []string{"{key}", "{token}", "{lease_ms}", "{lease_s}"}
	tokenPlaceholders = []string{"{uuid}", "{hex}", "{thread}", "{client}"}
	placeholder       = regexp.MustCompile(`\{[A-Za-z0-9_]*\}`)
	protocolName      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// maxProtocolFile bounds the size of a protocol file.
const maxProtocolFile = 1 << 20

// LoadProtocolFile reads and checks the protocol file at path, and runs
// the lock once fault-free (probeRun). Every error is one line starting
// with the path and naming the field (and, for a script, the line).
func LoadProtocolFile(path string) (*ProtocolFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProtocolFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(b) > maxProtocolFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxProtocolFile)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: empty (want a lock description as JSON: docs/protocol-files.md)", path)
	}
	d, err := ParseProtocolDescription(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	pf := &ProtocolFile{Path: path, Description: d}
	if msg := pf.probeRun(); msg != "" {
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	return pf, nil
}

// ParseProtocolDescription reads a protocol file's content: one JSON
// object, each field known (an unknown one fails with the nearest valid
// name) and the whole valid (Validate).
func ParseProtocolDescription(b []byte) (ProtocolDescription, error) {
	var d ProtocolDescription
	err := decodeKnownFields(b, &d, "description", "field ", func(err error, decoding bool) error {
		var te *json.UnmarshalTypeError
		switch {
		case !decoding:
			return err
		case errors.As(err, &te) && te.Field != "":
			return typeError(b, te)
		}
		return jsonError(b, err)
	})
	if err != nil {
		return ProtocolDescription{}, err
	}
	return d, d.Validate()
}

// jsonError adds the line of a JSON syntax error.
func jsonError(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %v", bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))+1, err)
	}
	return err
}

// Validate checks the description: the fields each step needs, the
// templates' placeholders, the replies' readings and the scripts' Lua.
// An error names the field.
func (d ProtocolDescription) Validate() error {
	switch {
	case d.Name == "":
		return errors.New(`field "name" is missing`)
	case !protocolName.MatchString(d.Name):
		return fmt.Errorf(`field "name": %q must be letters, digits, '.', '_' or '-'`, d.Name)
	case d.LeaseMs == 0:
		return errors.New(`field "lease_ms" is missing`)
	case d.LeaseMs < 1 || d.LeaseMs > MaxDurationMs:
		return fmt.Errorf(`field "lease_ms": must be between 1 and %d (ms)`, MaxDurationMs)
	case d.Token == "":
		return errors.New(`field "token" is missing (a template such as "{uuid}", or a constant)`)
	}
	if _, err := Lookup(d.Name); err == nil {
		return fmt.Errorf(`field "name": %q is a catalog protocol's name; choose another`, d.Name)
	}
	if err := checkPlaceholders("token", d.Token, tokenPlaceholders); err != nil {
		return err
	}
	a := d.Acquire
	if err := a.Call.validate("acquire", true); err != nil {
		return err
	}
	if err := readings("acquire", "acquired", a.Acquired, "held", a.Held, a.Otherwise); err != nil {
		return err
	}
	r := d.Release
	if err := r.Call.validate("release", true); err != nil {
		return err
	}
	if err := readings("release", "released", r.Released, "not_held", r.NotHeld, r.Otherwise); err != nil {
		return err
	}
	if r.OwnerChecked && !r.Call.uses("{token}") {
		return errors.New(`field "release.owner_checked" is true, but the release never passes {token}: an owner check needs the caller's token`)
	}
	if n := d.Renew; n != nil {
		if err := n.Call.validate("renew", true); err != nil {
			return err
		}
		if err := readings("renew", "renewed", n.Renewed, "not_held", n.NotHeld, n.Otherwise); err != nil {
			return err
		}
		if n.EveryMs < 1 || n.EveryMs > MaxDurationMs {
			return fmt.Errorf(`field "renew.every_ms": must be between 1 and %d (ms)`, MaxDurationMs)
		}
	}
	if p := d.Retry; p != nil {
		switch {
		case p.IntervalMs < 1 || p.IntervalMs > MaxDurationMs:
			return fmt.Errorf(`field "retry.interval_ms": must be between 1 and %d (ms)`, MaxDurationMs)
		case p.JitterMs < 0 || p.JitterMs > MaxDurationMs:
			return fmt.Errorf(`field "retry.jitter_ms": must be between 0 and %d (ms)`, MaxDurationMs)
		case p.GiveUpMs < 0 || p.GiveUpMs > MaxDurationMs:
			return fmt.Errorf(`field "retry.give_up_ms": must be between 0 and %d (ms)`, MaxDurationMs)
		case p.Attempts < 0 || p.Attempts > MaxAttempts:
			return fmt.Errorf(`field "retry.attempts": must be between 0 and %d`, MaxAttempts)
		case p.GiveUpMs == 0 && p.Attempts == 0:
			return errors.New(`field "retry": give it "give_up_ms" or "attempts" (an acquire that never gives up waits forever)`)
		}
	}
	return nil
}

// validate checks one step's call; needKey: it must name {key}.
func (c Call) validate(step string, needKey bool) error {
	switch {
	case len(c.Command) == 0 && len(c.Script) == 0:
		return fmt.Errorf("field %q is missing: give %q or %q", step, step+".command", step+".script")
	case len(c.Command) > 0 && len(c.Script) > 0:
		return fmt.Errorf("field %q: give %q or %q, not both", step, step+".command", step+".script")
	case len(c.Command) > 0 && (len(c.Keys) > 0 || len(c.Argv) > 0 || c.EvalSHA):
		return fmt.Errorf("field %q: keys, argv and evalsha go with a script, not a command", step)
	case needKey && !c.uses("{key}"):
		return fmt.Errorf("field %q never names the lock's key: use {key}", step)
	}
	for i, w := range c.Command {
		if err := checkPlaceholders(fmt.Sprintf("%s.command[%d]", step, i), w, argPlaceholders); err != nil {
			return err
		}
	}
	if len(c.Command) > 0 && placeholder.MatchString(c.Command[0]) {
		return fmt.Errorf("field %q: the command's name cannot be a placeholder", step+".command[0]")
	}
	for i, w := range c.Keys {
		if err := checkPlaceholders(fmt.Sprintf("%s.keys[%d]", step, i), w, argPlaceholders); err != nil {
			return err
		}
	}
	for i, w := range c.Argv {
		if err := checkPlaceholders(fmt.Sprintf("%s.argv[%d]", step, i), w, argPlaceholders); err != nil {
			return err
		}
	}
	if len(c.Script) > 0 {
		if err := luafast.CheckSyntax(c.Script.Body()); err != nil {
			return fmt.Errorf("%s.script %v", step, err)
		}
	}
	return nil
}

// uses reports whether any of the call's templates names ph.
func (c Call) uses(ph string) bool {
	for _, list := range [][]string{c.Command, c.Keys, c.Argv} {
		for _, w := range list {
			if strings.Contains(w, ph) {
				return true
			}
		}
	}
	return false
}

// checkPlaceholders refuses a {name} in template that is not one of valid,
// and a brace outside a {name}: "{uuid" or "lock-{thread" would otherwise
// be constant text, one token shared by every client.
func checkPlaceholders(field, template string, valid []string) error {
	for _, ph := range placeholder.FindAllString(template, -1) {
		if !slices.Contains(valid, ph) {
			return fmt.Errorf("field %q: %v", field, suggest.Unknown("placeholder", ph, valid))
		}
	}
	rest := placeholder.ReplaceAllString(template, "")
	i := strings.IndexAny(rest, "{}")
	if i < 0 {
		return nil
	}
	// The name next to the stray brace, as the placeholder it may mean.
	var name, what string
	if rest[i] == '{' {
		name = rest[i+1:]
		if j := strings.IndexFunc(name, notNameRune); j >= 0 {
			name = name[:j]
		}
		what = fmt.Sprintf("%q is never closed by '}'", "{"+name)
	} else {
		name = rest[:i]
		if j := strings.LastIndexFunc(name, notNameRune); j >= 0 {
			name = name[j+1:]
		}
		what = fmt.Sprintf("%q has no '{' before it", name+"}")
	}
	hint := "a placeholder is one of " + strings.Join(valid, ", ") + "; braces cannot be constant text"
	if best, ok := suggest.Nearest("{"+name+"}", valid); ok {
		hint = fmt.Sprintf("did you mean %q?", best)
	}
	return fmt.Errorf("field %q: %s: %s", field, what, hint)
}

// notNameRune reports whether r cannot be in a placeholder's name.
func notNameRune(r rune) bool {
	return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// readings checks a step's two lists of replies and its otherwise.
func readings(step, yes string, yesList []ReplyValue, no string, noList []ReplyValue, otherwise string) error {
	if len(yesList) == 0 {
		return fmt.Errorf("field %q is missing: the replies that mean success", step+"."+yes)
	}
	for _, v := range yesList {
		if slices.Contains(noList, v) {
			return fmt.Errorf("field %q: reply %s is in %q too", step+"."+no, v, step+"."+yes)
		}
	}
	if valid := []string{"error", yes, no}; otherwise != "" && !slices.Contains(valid, otherwise) {
		return fmt.Errorf("field %q: %v", step+".otherwise", suggest.Unknown("reading", otherwise, valid))
	}
	return nil
}

// lease is the description's default lease.
func (d ProtocolDescription) lease() time.Duration {
	return time.Duration(d.LeaseMs) * time.Millisecond
}
