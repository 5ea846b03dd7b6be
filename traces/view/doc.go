// Package view renders a trace as one self-contained HTML page, with no
// network access needed: the clients', nodes' and keys' lanes on a
// common time axis, drawn in the page from embedded JSON (the view
// model: events, holds, key lives with their TTLs, the checker's
// violations), and porcupine's linearization view as a second tab.
// WriteView renders a trace file, WriteOutcomeView a run's outcome.
package view
