package protocols

import (
	"strconv"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// DBService is the name of the application's database service.
const DBService = "db"

// DBRejected is the database's answer to a stale fencing token.
const DBRejected = model.ResRejected

func init() {
	// Seed 002: register a Pessoa whose nome must be unique. The flow is
	// section 1's double check (look up, lock, look up again, insert),
	// with the lock of the protocol under test and section 2's simulated
	// slow operation (Thread.sleep(5000)) before the INSERT. Every client
	// registers the same names in the same order, as concurrent
	// double-submits do; a refused lock ("Serviço ocupado. Tente novamente
	// mais tarde.") makes the user try again after RetryMs.
	registerWorkload(Workload{
		Name:    "unique-name",
		Source:  "seed 002 (cadastrarPessoa)",
		Summary: "check the person table, lock, re-check, insert; duplicates are the damage",
		WorkMs:  5000,
		Setup: func(w *sim.World, sc Scenario) {
			rows := map[string]int{}
			// With a fencing lock, the INSERT carries the lock's token as a
			// third argument: the database refuses a token lower than the
			// highest it accepted for the name (DBRejected) and remembers
			// the highest.
			highest := map[string]int64{}
			fenced := func(args []string) bool {
				if len(args) < 3 {
					return true
				}
				token, err := strconv.ParseInt(model.WriteToken(args), 10, 64)
				if err != nil || token < highest[args[1]] {
					return false
				}
				highest[args[1]] = token
				return true
			}
			w.AddService(DBService, func(client string, args []string) string {
				switch {
				case len(args) < 2 || len(args) > 3:
				case args[0] == "INSERT" && !fenced(args):
					return DBRejected
				case args[0] == "SELECT":
					return strconv.Itoa(rows[args[1]])
				case args[0] == "INSERT":
					rows[args[1]]++
					return "OK"
				}
				return "ERR bad query"
			})
		},
		Thread: uniqueNameThread,
	})
}

// uniqueNameOp is what the i-th op of every thread names: the person,
// the lock and the SELECT request.
type uniqueNameOp struct {
	name, lock string
	sel        []string
}

// uniqueNameOps are the run's ops, shared by its threads; nothing writes
// to them (the sim and the trace only read a request). The usual few are
// built once for every run.
func uniqueNameOps(r *Runner) []uniqueNameOp {
	if n := r.Sc.Ops; n <= len(uniqueNameFirst) {
		return uniqueNameFirst[:n:n]
	}
	return r.shared("unique-name", func() any { return uniqueNameTable(r.Sc.Ops) }).([]uniqueNameOp)
}

// uniqueNameFirst are the first ops of every run.
var uniqueNameFirst = uniqueNameTable(16)

// uniqueNameTable is ops 0 to n-1.
func uniqueNameTable(n int) []uniqueNameOp {
	ops := make([]uniqueNameOp, n)
	for i := range ops {
		name := "person-" + strconv.Itoa(i)
		ops[i] = uniqueNameOp{name: name, lock: "trava_nome_" + name, sel: []string{"SELECT", name}}
	}
	return ops
}

func uniqueNameThread(t *sim.Thread, r *Runner) {
	for _, o := range uniqueNameOps(r) {
		r.Think(t)
		name := o.name
		for attempt := 0; attempt < r.Sc.Attempts; attempt++ {
			n, err := t.Request(DBService, o.sel...)
			if err != nil || n != "0" {
				break // "Nome já cadastrado."
			}
			lock := r.Lock(o.lock)
			ok, _ := lock.Acquire(t)
			if !ok {
				r.Retry(t)
				continue
			}
			// The token (fencing locks only) goes with the INSERT and is
			// the op's Value.
			token := tokenValue(lock)
			op := t.Invoke(model.OpInsert, name, token)
			n, err = t.Request(DBService, o.sel...)
			switch {
			case err != nil:
				t.Return(op, model.ResError+": "+err.Error())
			case n != "0":
				t.Return(op, model.ResExists)
			default:
				r.Work(t)
				write := -1
				if token != "" {
					write = t.Invoke(model.OpWrite, name, token)
				}
				res, err := t.Request(DBService, model.FencedInsert(name, token)...)
				switch {
				case err != nil:
					res = model.ResError + ": " + err.Error()
					t.Return(op, res)
				case res == DBRejected:
					res = model.ResRejected
					t.Return(op, res)
				default:
					res = model.ResOK
					t.Return(op, model.ResInserted)
				}
				if write >= 0 {
					t.Return(write, res)
				}
			}
			lock.Release(t)
			break
		}
	}
}
