package explore

import "fmt"

// Plural writes n and the noun, adding an s unless n is 1: "1 fault",
// "2 faults".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
