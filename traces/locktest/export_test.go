package locktest

// Recorder and NewRecorder let the external tests and examples run
// properties that are meant to fail.
type Recorder = recorder

var NewRecorder = newRecorder

// Message is the failure message the recorder got last.
func (r *recorder) Message() string { return r.message() }

const RaceEnabled = raceEnabled
