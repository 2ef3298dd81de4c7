/**
 * The calling side of onnx-thread.cjs: starts an onnxruntime session on a worker thread and runs it
 * there, so encoding a batch never blocks the event loop. The inputs are copied to the thread (a few
 * KB), the output is transferred back. An idle thread does not keep the process alive.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const THREAD_FILE = join(__dirname, 'onnx-thread.cjs');

export interface OnnxFeed {
  type: 'int64' | 'int32';
  data: BigInt64Array | Int32Array;
  dims: number[];
}

export interface OnnxOutput {
  type: string;
  dims: number[];
  /** Present when the output is float32. */
  data?: Float32Array;
}

export interface OnnxThread {
  /** The model's inputs and their element types (int64, int32, ...). */
  inputs: Array<{ name: string; type: string }>;
  outputs: string[];
  run(feeds: Record<string, OnnxFeed>, output: string): Promise<OnnxOutput>;
  /** False once the thread has failed, exited or been closed. */
  alive(): boolean;
  close(): Promise<void>;
}

type Ready = { ready: true; inputs: OnnxThread['inputs']; outputs: string[] } | { ready: false; message: string };
type Reply = { id: number; ok: true; type: string; dims: number[]; data?: Float32Array } | { id: number; ok: false; message: string };

/** Loads `modelPath` on a new thread; rejects with onnxruntime's message when it cannot. */
export async function startOnnxThread(modelPath: string, threads: number): Promise<OnnxThread> {
  const worker = new Worker(THREAD_FILE, { workerData: { modelPath, threads } });
  let loadingListeners: Array<[string, Parameters<Worker['once']>[1]]> = [];
  const ready = await new Promise<Ready>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the model thread stopped while loading (exit code ${code})`));
    loadingListeners = [
      ['message', resolve],
      ['error', reject],
      ['exit', onExit],
    ];
    for (const [event, listener] of loadingListeners) worker.once(event, listener);
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  // Only our own listeners: Worker keeps listeners of its own that start and stop its message port.
  for (const [event, listener] of loadingListeners) worker.off(event, listener);
  if (!ready.ready) {
    await worker.terminate();
    throw new Error(ready.message);
  }

  const pending = new Map<number, { resolve(value: OnnxOutput): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopped: Error | undefined;
  const settle = () => {
    if (pending.size === 0) worker.unref();
  };
  const failAll = (error: Error) => {
    stopped ??= error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    settle();
    if (reply.ok) call.resolve({ type: reply.type, dims: reply.dims, data: reply.data });
    else call.reject(new Error(`local embedding model: ${reply.message}`));
  });
  worker.on('error', (error) => failAll(new Error(`local embedding model thread failed: ${error.message}`)));
  worker.on('exit', (code) => failAll(new Error(`local embedding model thread stopped (exit code ${code})`)));
  settle();

  return {
    inputs: ready.inputs,
    outputs: ready.outputs,
    alive: () => !stopped,
    run(feeds, output) {
      if (stopped) return Promise.reject(stopped);
      const id = nextId++;
      return new Promise<OnnxOutput>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        if (pending.size === 1) worker.ref();
        worker.postMessage({ id, feeds, output });
      });
    },
    async close() {
      stopped ??= new Error('local embedding model thread closed');
      await worker.terminate();
    },
  };
}
