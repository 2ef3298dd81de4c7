/** Where image files live. Keys are relative object paths such as `images/<sha256>.webp`. */
export interface Storage {
  /** Writes (or overwrites with identical content) an object. */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Reads an object; null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  exists(key: string): Promise<boolean>;
  /** Deletes an object; a missing one is no error (housekeeping of expired uploads repeats work). */
  delete(key: string): Promise<void>;
  /** Absolute URL a browser can load the object from. Pure: no I/O. */
  publicUrl(key: string): string;
  /** Cheap reachability check for readiness probes. */
  ping(): Promise<void>;
}
