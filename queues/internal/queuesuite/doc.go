// Package queuesuite holds the property tables of the FIFO and DeltaFIFO
// conformance suites, which share the cache.Queue properties, helpers, the
// operation generator of their differential checks and their hammers. The
// exported suites are queues/fifo/fifotest and
// queues/deltafifo/deltafifotest, whose package docs state the contracts.
package queuesuite
