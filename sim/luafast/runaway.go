package luafast

import (
	"context"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A script that never returns ("while true do end") would hang the run:
// real Redis answers BUSY to every other client once a script outlives
// lua-time-limit, and the script runs on until killed. The engine stops
// such a script at a count of instructions, never at a time, so that a
// run stays a pure function of its scenario: the same script stops at
// the same instruction on any machine, however loaded.
//
// gopher-lua counts only through a context whose Done it calls before
// every instruction; that costs a script on the VM about 0.2 % of its
// instructions (the catalog's scripts run as fast paths, uncounted).

// MaxScriptSteps is how many Lua instructions one script call may run.
// A lock's script runs tens to thousands; at gopher-lua's speed this is
// about half a second of work.
const MaxScriptSteps = 10_000_000

// stepBudget counts the instructions of a script: gopher-lua,
// given it as a context (SetContext), calls Done before every
// instruction. Done answers nil (no case ready: run on) while
// instructions are left, then a closed channel, upon which the VM raises
// Err as a Lua error. Once spent it stays spent until the next script,
// so a pcall cannot swallow it: the next instruction raises again.
// Coroutines the script makes count against it too (countCoroutines).
type stepBudget struct {
	left int64
}

var spentChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (b *stepBudget) Done() <-chan struct{} {
	if b.left--; b.left < 0 {
		return spentChan
	}
	return nil
}

func (b *stepBudget) Err() error {
	if b.left < 0 {
		return errUnfinished
	}
	return nil
}

func (b *stepBudget) Deadline() (time.Time, bool) { return time.Time{}, false }
func (b *stepBudget) Value(any) any               { return nil }

var _ context.Context = (*stepBudget)(nil)

// errUnfinished is the Lua error a script past MaxScriptSteps gets.
var errUnfinished = fmt.Errorf("script did not finish within %d Lua instructions (locksim stops it, as Redis's SCRIPT KILL after BUSY)", MaxScriptSteps)

// UnfinishedError fails a run whose script did not finish.
type UnfinishedError struct {
	Script string // the script's body
}

func (e *UnfinishedError) Error() string {
	text := strings.Join(strings.Fields(e.Script), " ")
	if len(text) > 60 {
		text = text[:57] + "..."
	}
	return fmt.Sprintf("Lua script %q did not finish: %s", text, e.Reason())
}

// Reason says what happened, without naming the script.
func (e *UnfinishedError) Reason() string {
	return fmt.Sprintf("still running after %d instructions, an endless loop? (Redis would answer BUSY to every other client; locksim stops a script at a count of instructions so that runs stay deterministic)", MaxScriptSteps)
}

// SetOnUnfinished sets the function an engine calls with an
// *UnfinishedError when a script does not finish; the script's caller
// has an error reply by then.
func (e *Engine) SetOnUnfinished(f func(error)) { e.onUnfinished = f }

// countCoroutines makes the coroutines a script creates count their
// instructions against v.budget: gopher-lua gives a new thread a child
// context of its parent's, which Done would not reach.
func (v *vm) countCoroutines() {
	L, b := v.L, &v.budget
	co := L.GetGlobal("coroutine").(*lua.LTable)
	wrap := func(name string, thread func(L *lua.LState) *lua.LState) {
		orig := co.RawGetString(name).(*lua.LFunction).GFunction
		co.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			n := orig(L)
			if th := thread(L); th != nil {
				th.SetContext(b)
			} else {
				L.RaiseError("locksim: coroutine.%s made no thread it can count", name)
			}
			return n
		}))
	}
	wrap("create", func(L *lua.LState) *lua.LState {
		th, _ := L.Get(L.GetTop()).(*lua.LState)
		return th
	})
	// coroutine.wrap returns a Go closure whose first upvalue is its thread.
	wrap("wrap", func(L *lua.LState) *lua.LState {
		if f, ok := L.Get(L.GetTop()).(*lua.LFunction); ok && len(f.Upvalues) > 0 {
			th, _ := f.Upvalues[0].Value().(*lua.LState)
			return th
		}
		return nil
	})
}
