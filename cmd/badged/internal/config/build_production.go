//go:build production

package config

// devBuild is false in production builds (-tags production, the Docker image): webhook URLs default to https and
// public addresses only.
const devBuild = false
