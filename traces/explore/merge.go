package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// ReadSummaryLimit reads a summary.json of at most limit bytes, refusing
// unknown fields, data after it and counts that cannot be.
func ReadSummaryLimit(path string, limit int64) (*Summary, error) {
	in, err := traces.OpenInput(path, limit)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, traces.ErrTooLarge) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s: not an explore summary: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not an explore summary: data after its closing brace", path)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: not a valid explore summary: %v", path, err)
	}
	return &s, nil
}

// check refuses a summary whose counts contradict each other or whose
// template is not a valid scenario.
func (s *Summary) check() error {
	if s.Protocol == "" {
		return errors.New("no protocol")
	}
	t, err := s.Scenario.Normalize()
	if err != nil {
		return fmt.Errorf("template: %v", err)
	}
	if t.Protocol != s.Protocol || t.Workload != s.Workload || t.Topology != s.Topology {
		return errors.New("its template does not match its protocol, workload or topology")
	}
	switch {
	case s.Runs < 0 || s.Violating < 0 || s.Unknown < 0 || s.Errors < 0:
		return errors.New("negative counts")
	case s.Violating+s.Unknown+s.Errors > s.Runs:
		return fmt.Errorf("%d violating, %d unknown and %d errors out of %d runs", s.Violating, s.Unknown, s.Errors, s.Runs)
	case s.unknownWhyRuns() > s.Unknown:
		return fmt.Errorf("reasons for %d runs not judged, of %d", s.unknownWhyRuns(), s.Unknown)
	case s.SimMs < 0 || s.WallMs < 0:
		return errors.New("negative times")
	}
	if _, _, err := s.shard(); err != nil {
		return err
	}
	for _, p := range s.Plots {
		if err := checkPlot(p, s.Runs, s.Violating); err != nil {
			return err
		}
	}
	if err := s.Damage.check(s.Runs, s.Violating); err != nil {
		return err
	}
	for _, c := range s.Causes {
		if c.Runs < 1 || c.Runs > s.Violating || c.Property == "" || c.Cause == "" {
			return fmt.Errorf("cause %s/%s counts %d of %d violating runs", c.Property, c.Cause, c.Runs, s.Violating)
		}
	}
	return nil
}

// unknownWhyRuns is the runs the reasons of UnknownWhy count; MaxInt if a
// reason is empty or counts no run, more than any count.
func (s *Summary) unknownWhyRuns() int {
	n := 0
	for _, w := range s.UnknownWhy {
		if w.Why == "" || w.Runs < 1 {
			return math.MaxInt
		}
		n += w.Runs
	}
	return n
}

// shard returns the summary's K and N (1 and 1 when not sharded).
func (s *Summary) shard() (uint64, uint64, error) {
	if s.Shard == "" {
		return 1, 1, nil
	}
	a, b, _ := strings.Cut(s.Shard, "/")
	k, err1 := strconv.ParseUint(a, 10, 32)
	n, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q is not K/N with 1 <= K <= N", s.Shard)
	}
	return k, n, nil
}

// MergeShards validates that the parts are shards of one exploration (one
// scenario template, disjoint seeds) and merges them.
func MergeShards(parts []*Summary, names []string) (*Summary, error) {
	for i, p := range parts {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("%s: %v", names[i], err)
		}
		if i == 0 {
			continue
		}
		if d := templateDiff(parts[0].Scenario, p.Scenario); d != "" {
			return nil, fmt.Errorf("%s and %s are not shards of one exploration: %s differs", names[0], names[i], d)
		}
		for j := range i {
			if overlap(parts[j], p) {
				return nil, fmt.Errorf("%s and %s ran overlapping seeds (the same shard twice?)", names[j], names[i])
			}
		}
	}
	m, err := merge(parts)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// templateDiff names the first field in which two templates differ.
func templateDiff(a, b protocols.Scenario) string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	var keys []string
	for _, m := range []map[string]json.RawMessage{ma, mb} {
		for k := range m {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !bytes.Equal(ma[k], mb[k]) {
			return k
		}
	}
	return ""
}

// overlap reports whether two summaries may have run a seed in common.
// Shards K/N of one seed start never do; otherwise their seed intervals
// must be disjoint.
func overlap(a, b *Summary) bool {
	ka, na, _ := a.shard()
	kb, nb, _ := b.shard()
	if na == nb && a.SeedStart == b.SeedStart {
		return ka == kb
	}
	lo1, hi1 := span(a.SeedStart, a.Runs, na)
	lo2, hi2 := span(b.SeedStart, b.Runs, nb)
	return lo1 <= hi2 && lo2 <= hi1
}

// span is the closed interval of seeds a summary's runs may cover.
func span(start uint64, runs int, n uint64) (uint64, uint64) {
	width := uint64(max(runs, 1)) * n
	if width > math.MaxUint64-start {
		return start, math.MaxUint64
	}
	return start, start + width - 1
}
