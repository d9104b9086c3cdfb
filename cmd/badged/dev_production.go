//go:build production

package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/badged/badged/cmd/badged/internal/config"
)

// startEmbedded is not in production builds: they link neither the Temporal server nor the dev chain.
func startEmbedded(context.Context, *config.Config, *slog.Logger) (func(), error) {
	return nil, errors.New("this is a production build (-tags production) without the embedded default; " +
		"run serve and worker against TEMPORAL_ADDRESS, or build without the tag for `badged dev`")
}
