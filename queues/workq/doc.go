// Package workq provides drop-in implementations of client-go's
// workqueue.TypedInterface, with delaying and rate-limiting layers that wrap
// any of them (or client-go's own queue).
package workq
