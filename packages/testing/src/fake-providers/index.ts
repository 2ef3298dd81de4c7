export {
  fakeImage,
  fakeImageColour,
  times,
  type FakeBehaviour,
  type FakeFailure,
  type FakeProviderServer,
  type RecordedFile,
  type RecordedRequest,
  type ReceivedImage,
  decodeReceived,
} from './server';
export { startFakeOpenAI, openAIError, type FakeOpenAIBehaviour, type FakeOpenAIOptions, type FakeOpenAIServer, type OpenAIReceivedEdit } from './openai';
export {
  startFakeReplicate,
  replicateError,
  type FakeReplicateBehaviour,
  type FakeReplicateOptions,
  type FakeReplicateServer,
  type ReplicateReceived,
} from './replicate';
export { startFakeA1111, a1111Error, A1111_UPSCALERS, type A1111Received, type FakeA1111Behaviour, type FakeA1111Options, type FakeA1111Server } from './a1111';
export { startFakeEmbeddings, fakeEmbedding, type FakeEmbeddingsBehaviour, type FakeEmbeddingsOptions } from './embeddings';
export { startFakeComfyUI, comfyError, type ComfyUploadReceived, type FakeComfyUIBehaviour, type FakeComfyUIServer } from './comfyui';
