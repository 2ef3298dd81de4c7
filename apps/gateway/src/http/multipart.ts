import Busboy, { type BusboyHeaders } from '@fastify/busboy';
import type { Request } from 'express';
import { AppError, fieldError } from '@promptpix/core';
import { ErrorMessages, ImageInputMessages } from '@promptpix/contracts';

/** What one multipart door takes: the file fields it knows, and how much of each. */
export interface MultipartLimits {
  /** Field names that may carry a file (`image`, `image[]`, `mask`); a file under any other name is a 400 naming it. */
  fileFields: readonly string[];
  /** Files in the whole body. */
  maxFiles: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Text fields in the whole body, and bytes of one. */
  maxFields: number;
  maxFieldBytes: number;
}

export interface MultipartFile {
  field: string;
  filename: string;
  data: Buffer;
}

export interface MultipartBody {
  /** Text fields by name, in the order sent (a name sent twice has two values). */
  fields: Map<string, string[]>;
  files: MultipartFile[];
}

const isMultipart = (req: Request) => (req.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data');

/**
 * Reads a `multipart/form-data` body of an authenticated caller, within `limits`: a file past its
 * byte limit, one file too many or a file under an unknown name stops the read at once (the rest of
 * the body is never buffered, and the connection is closed: http-server.ts), with a 4xx naming the field.
 */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartBody> {
  if (!isMultipart(req)) return Promise.reject(new AppError('unsupported_media_type', 'Expected a multipart/form-data body'));
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string[]>();
    const files: MultipartFile[] = [];
    let failed = false;
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = Busboy({
        headers: req.headers as BusboyHeaders,
        limits: {
          files: limits.maxFiles,
          fileSize: limits.maxFileBytes,
          fields: limits.maxFields,
          fieldSize: limits.maxFieldBytes,
          parts: limits.maxFiles + limits.maxFields,
          fieldNameSize: 100,
          headerPairs: 20,
        },
      });
    } catch {
      reject(new AppError('invalid_request', 'Expected a multipart/form-data body with a boundary'));
      return;
    }
    const fail = (error: AppError) => {
      if (failed) return;
      failed = true;
      req.unpipe(busboy);
      req.resume();
      reject(error);
    };
    busboy.on('file', (field, stream, filename) => {
      if (!limits.fileFields.includes(field)) {
        stream.resume();
        fail(fieldError(field, `Unexpected file field; expected ${limits.fileFields.join(', ')}`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(
          new AppError('payload_too_large', ErrorMessages.invalidRequest, {
            details: { formErrors: [], fieldErrors: { [field]: [ImageInputMessages.tooManyBytes] } },
          }),
        ),
      );
      stream.on('end', () => {
        if (!failed) files.push({ field, filename, data: Buffer.concat(chunks) });
      });
    });
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) return fail(fieldError(name, `Longer than ${limits.maxFieldBytes} bytes`));
      fields.set(name, [...(fields.get(name) ?? []), value]);
    });
    busboy.on('filesLimit', () => fail(fieldError(limits.fileFields[0], `At most ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'}`)));
    busboy.on('fieldsLimit', () => fail(new AppError('invalid_request', `At most ${limits.maxFields} fields`)));
    busboy.on('partsLimit', () => fail(new AppError('invalid_request', ErrorMessages.invalidRequest)));
    busboy.on('error', () => fail(new AppError('invalid_request', 'The multipart body could not be read')));
    busboy.on('finish', () => {
      if (!failed) resolve({ fields, files });
    });
    req.on('aborted', () => fail(new AppError('invalid_request', 'The request was cut off')));
    req.pipe(busboy);
  });
}
