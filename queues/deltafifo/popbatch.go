package deltafifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// PopBatch pops several queued keys at once, for a consumer that applies
// them to its store in one write section (client-go's controller uses it
// when the InOrderInformersBatchProcess gate is on; see RealFIFO.PopBatch).
//
// A batch is consecutive queued keys, at most DefaultMaxBatch of them, each
// with exactly one delta: cache.ProcessBatchFunc must not see two entries
// for one object, because processDeltasInBatch looks every old object up
// before applying any. A key with several deltas goes alone to
// processSingle, as does a batch of one. A batch never spans the end of the
// initial population, so isInInitialList is right for all of it. The
// outcome — deltas per key, order, HasSynced — is that of the equivalent
// sequence of Pops; processBatch and processSingle run under the lock(s) of
// the keys' shard(s), as Pop's process does. ErrRequeue has no meaning here
// and is returned like any other error.
func (f *core) PopBatch(processBatch cache.ProcessBatchFunc, processSingle cache.PopProcessFunc) error {
	var stack [16]cache.Deltas
	taken := stack[:0]
	return f.set.PopBatch(keyq.Batch[cache.Deltas]{
		Max:  f.maxBatch,
		Fits: func(sl *keyq.Slot[cache.Deltas]) bool { return len(sl.Acc) == 1 },
		Take: func(sl *keyq.Slot[cache.Deltas]) keyq.Effect {
			ds := sl.Acc
			sl.Acc = nil
			taken = append(taken, ds)
			return emptied(ds)
		},
		Process: func(n int, initial bool) error {
			defer func() { taken = taken[:0] }()
			if n == 1 {
				return processSingle(taken[0], initial)
			}
			batch := make([]cache.Delta, n) // the consumer's to keep
			for i, ds := range taken {
				batch[i] = ds[0]
			}
			return processBatch(batch, initial)
		},
	})
}
