// Package informer is a drop-in cache.SharedIndexInformer built from
// queuelab's parts, for controllers that get their informers from
// client-go's informers.SharedInformerFactory or controller-runtime's cache
// rather than building one by hand.
//
// # Using it
//
// NewSharedIndexInformer takes what client-go's
// cache.NewSharedIndexInformerWithOptions takes, inside Options, and returns
// an *Informer, which is a cache.SharedIndexInformer:
//
//	inf, err := informer.NewSharedIndexInformer(lw, &corev1.Pod{}, informer.Options{
//		SharedIndexInformerOptions: cache.SharedIndexInformerOptions{
//			Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
//		},
//	})
//
// With client-go's informer factory, register it for a type before anything
// asks the factory for that type; the generated typed informer and lister
// then read its store:
//
//	newInformer, err := informer.NewInformerFunc(informer.Options{})
//	factory := informers.NewSharedInformerFactory(client, resync)
//	factory.InformerFor(&corev1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
//		return newInformer(podListWatch(c), &corev1.Pod{}, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
//	})
//	lister := factory.Core().V1().Pods().Lister()
//
// With controller-runtime, a Func is cache.Options.NewInformer, so every
// controller watching through the manager's cache (source.Kind, the
// builder's For and Owns) runs on it:
//
//	newInformer, err := informer.NewInformerFunc(informer.Options{})
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{NewInformer: newInformer}})
//
// NewInformerFunc checks the options once and returns a Func that cannot
// fail, which is what both hooks need; the complete programs are
// ExampleNewInformerFunc_informerFactory here and
// Example_informerNewInformer in queues/priorityq.
//
// # Choosing the parts
//
// The zero Options is client-go's informer contract over the lab's
// defaults. Options.FIFO and Options.Store take typed values, each built
// with its own package's Options, so every setting of a part can be set
// and a mistake is a constructor error:
//
//   - FIFO{} (the default), InOrderFIFO(inorder.NewMutex, inorder.Options{}):
//     client-go's RealFIFO contract (every event in arrival order, a relist
//     one event, batches popped) with a ring buffer that allocates a sixth
//     as often per event. InOrderFIFO(inorder.NewLockFree, ...) never locks
//     its writer, the Reflector.
//   - RealFIFO(): client-go's own queue, the one that publishes client-go's
//     FIFO metrics; use it where a reserved Identifier's
//     queued-items and latency series are watched.
//   - DeltaFIFO(deltafifo.NewMutex, deltafifo.Options{}) (or NewSharded,
//     NewRing): the queue of pre-v0.33 informers, per key, for comparing
//     with older controllers. NewSharded keeps FIFO order per shard only.
//   - Store{} (the default), StoreOf(stores.NewSnapshot, stores.Options{}):
//     every scan is a snapshot and none holds up the informer's writer,
//     with every guarantee of client-go's store; it costs allocations on
//     every write and about twice stores.NewMutex's memory.
//   - StoreOf(stores.NewMutex, ...): the least memory. StoreOf(stores.NewLockFree,
//     ...) and StoreOf(stores.NewSharded, stores.Options{Shards: n}): readers
//     never wait for the writer (lockfree) or wait for one shard (sharded),
//     at the price of scans that may mix instants.
//   - ClientGoStore(): client-go's threadSafeMap.
//
// A FIFO or Store with New set is any queue or store of the caller's; the
// informer hands it what client-go's informer would (FIFOConfig, the
// indexers).
//
// # How it differs from client-go's
//
// The data path is client-go's: the Reflector (run by cache.New) lists and
// watches into the FIFO, one consumer pops it and applies each pop to the
// store, a batch in one transaction, then hands the resulting
// notifications to every handler registration. The handler fan-out runs
// each registration on one goroutine instead of client-go v0.37's two
// joined by channels, hands notifications over in batches without
// allocating, and buffers them without bound, so a slow handler delays
// nobody else. Everything else is client-go's unless an
// option says otherwise:
//
//   - A handler's panic crashes as utilruntime.HandleCrash makes it;
//     Options.RecoverHandlerPanics loses only that event instead.
//   - The FIFO is built when the informer is, and it always pops batches:
//     client-go's InOrderInformers feature gates do not change it.
//   - A reserved Identifier with a FIFO that publishes no metrics is a
//     constructor error, not a missing series.
//   - A negative resync period and a nil handler are errors where client-go
//     accepts them and misbehaves later; errors callers match carry
//     client-go's texts.
//
// informer/informertest is the conformance suite client-go's informer and
// this one pass, with the differential check against client-go's.
package informer
