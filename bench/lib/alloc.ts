// Bytes this process allocates on V8's heap between two points: what issue 35 asks to count per
// delivery (the worker's) beside the same count per POST of the undici ceiling's client. Measured
// from the heap's used size around every garbage collection in between (node:v8's GCProfiler): what
// was allocated is what the heap grew by between collections, plus its growth after the last one.
// Buffers' memory outside the heap (their ArrayBuffers' contents) is not counted; their objects are.
import v8 from 'node:v8';

/** Starts counting; the function returned stops it and answers bytes per operation over `n`. */
export function measureAllocations(): (n: number) => number {
  const profiler = new v8.GCProfiler();
  const start = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  return (n) => {
    const end = v8.getHeapStatistics().used_heap_size;
    const { statistics } = profiler.stop();
    let bytes = 0;
    let previous = start;
    for (const gc of statistics) {
      bytes += gc.beforeGC.heapStatistics.usedHeapSize - previous;
      previous = gc.afterGC.heapStatistics.usedHeapSize;
    }
    bytes += end - previous;
    return bytes / n;
  };
}
