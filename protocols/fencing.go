package protocols

import (
	"strconv"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// The protected resource's side of fencing (Kleppmann, "How to do
// distributed locking"): a write made under the lock carries the lock's
// token, and the resource refuses a token lower than the highest it has
// accepted for that resource, then remembers the new highest. Reads carry
// no token, as in the fencing scheme: a holder whose lease ran out can
// still act on a value it read before a newer holder wrote, which is why
// fencing protects a blind write but not every read-modify-write. Data
// that lives in Redis (stock, lock-set) is fenced by a script on the data
// node, with the highest token in <key>:fence; the database of
// unique-name keeps its own (unique_name.go).

// fencedWrite: KEYS[1] the data, KEYS[2] the fence; ARGV[1] the token,
// ARGV[2] the value. 0 when stale, 1 when written. Its text and fast
// path are in compare_scripts.go.

func fenceKey(key string) string { return key + ":fence" }

// getData reads key from the data node.
func getData(t *sim.Thread, node, key string) (string, error) {
	r, err := t.Call(node, "GET", key)
	if err != nil {
		return "", err
	}
	if r.IsErr() {
		return "", errorReply(r)
	}
	return r.Str, nil
}

// setData writes key on the data node, through the fence when the lock
// hands out tokens; a fenced write is also recorded as a write op whose
// Value is the token, for the checker's fenced-register model.
func setData(t *sim.Thread, node, key, value string, lock Lock) (rejected bool, err error) {
	token, fenced := fencingToken(lock)
	if !fenced {
		_, err := t.Call(node, "SET", key, value)
		return false, err
	}
	op := t.Invoke(model.OpWrite, key, strconv.FormatInt(token, 10))
	r, err := t.Call(node, model.FencedEval(fencedWrite, []string{key, fenceKey(key)}, strconv.FormatInt(token, 10), value)...)
	if err == nil && r.IsErr() {
		err = errorReply(r)
	}
	if err != nil {
		t.Return(op, model.ResError+": "+err.Error())
		return false, err
	}
	if r.Int == 0 {
		t.Note(key, "fenced storage: write with stale token "+strconv.FormatInt(token, 10)+" rejected")
		t.Return(op, model.ResRejected)
		return true, nil
	}
	t.Return(op, model.ResOK)
	return false, nil
}

// tokenValue renders the lock's token for an op's Value ("" unfenced).
func tokenValue(lock Lock) string {
	if token, ok := fencingToken(lock); ok {
		return strconv.FormatInt(token, 10)
	}
	return ""
}
