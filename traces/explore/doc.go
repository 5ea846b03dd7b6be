// Package explore runs a scenario over many seeds and sums up what it
// found: Explore counts the runs by verdict and by violation cause, keeps
// the first trace of each cause, and merges shards of one exploration
// (Merge, MergeShards, ReadSummary). Around it: RunMatrix fills the
// safety matrix (one cell per protocol and fault kind), Verify runs a
// bounded exhaustive scope of single faults placed at every step of a
// fault-free run, Shrink reduces a violating trace's scenario to a
// smaller one that still fails, and Judge reads a checker report as the
// exploration counts it.
//
// The command line (cmd/locksim) and traces/locktest are its callers;
// the scenario flags they share are registered here
// (RegisterScenarioFlags), and ReplayCommand prints the one line that
// replays a run.
package explore
