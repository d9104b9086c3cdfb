//go:build !production

package config

// devBuild is true in builds that carry `badged dev` (without -tags production): webhook URL rules default to what
// local testing needs (http and private addresses allowed).
const devBuild = true
