package main

import (
	"fmt"
	"io"

	"github.com/badged/badged/internal/retrypolicy"
)

// adminRetryPolicy runs `badged admin retry-policy check FILE`: it validates a retry table before a worker restart
// would load it, and prints the effective table. An invalid file is an error naming each mistake's line.
func adminRetryPolicy(args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "check" {
		return errUsage
	}
	p, err := retrypolicy.Load(args[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: valid\n\n", args[1])
	return p.Format(stdout)
}
