export { PromptPix, type GenerateOptions, type PromptPixOptions, type RequestOptions, type UploadOptions } from './client';
export type { JobEventsOptions } from './job-events';
export type { WaitOptions } from './wait-for-image';
export {
  AuthenticationError,
  ConnectionError,
  GenerationFailedError,
  InvalidRequestError,
  NotFoundError,
  ConflictError,
  PermissionError,
  PromptPixError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type ErrorBody,
} from './errors';
export type * from './types';
export { signPrompt, type PromptToSign } from './sign-prompt';
