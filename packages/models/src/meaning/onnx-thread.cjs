// A local embedding model's own thread: one onnxruntime-node session, run on messages from the
// thread that started it (onnx-thread.ts holds the other end). onnxruntime-node's `run` computes
// synchronously on the calling thread (its promise only defers the call with setImmediate), so on
// the main thread a batch would stall every request; here it stalls only this thread.
//
// Plain CommonJS on purpose, like the embedded database's thread: a worker thread is a fresh Node
// context that Jest's and tsx's TypeScript transforms do not reach, and it is loaded from this
// folder both from source and from the dist/ bundles. It only requires third-party packages.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const ort = require('onnxruntime-node');

/** workerData: { modelPath: string, threads: number } */
async function main() {
  let session;
  try {
    session = await ort.InferenceSession.create(workerData.modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: workerData.threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // Errors only: onnxruntime's warnings (an unused initializer, ...) would go to stderr, outside the logs.
      logSeverityLevel: 3,
    });
  } catch (error) {
    parentPort.postMessage({ ready: false, message: error instanceof Error ? error.message : String(error) });
    return;
  }
  parentPort.postMessage({
    ready: true,
    inputs: session.inputMetadata.map((m) => ({ name: m.name, type: m.isTensor ? m.type : 'other' })),
    outputs: session.outputNames,
  });

  // One run at a time: messages wait in the port's queue while a run computes.
  parentPort.on('message', async ({ id, feeds, output }) => {
    try {
      const tensors = {};
      for (const [name, { type, data, dims }] of Object.entries(feeds)) tensors[name] = new ort.Tensor(type, data, dims);
      const results = await session.run(tensors, [output]);
      const result = results[output];
      const data = result.type === 'float32' ? new Float32Array(result.data) : undefined;
      const reply = { id, ok: true, type: result.type, dims: Array.from(result.dims, Number), data };
      for (const value of Object.values(results)) value.dispose();
      parentPort.postMessage(reply, data ? [data.buffer] : []);
    } catch (error) {
      parentPort.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
}

main();
