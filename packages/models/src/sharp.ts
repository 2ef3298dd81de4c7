import type SharpModule from 'sharp';

let loaded: typeof SharpModule | undefined;

/**
 * sharp, loaded at its first use rather than when a module that uses it is imported. Loading it
 * maps libvips and its libraries (tens of MB resident, for the life of the process), and most
 * processes that bundle this package never touch an image: a gateway derives one only for a
 * variant, a style preview, an operator's upload or the library seed. Call it where the image
 * work starts: `loadSharp()(input, options)`. Whoever sets sharp's own settings (`sharp.cache`,
 * `sharp.concurrency`, as the worker does) may import sharp directly; it is the same module.
 */
export function loadSharp(): typeof SharpModule {
  if (!loaded) {
    loaded = require('sharp') as typeof SharpModule;
    // Every process here is long-running and decodes images it never reads twice (uploads, variants):
    // libvips' operation cache would only keep their memory after the request.
    loaded.cache(false);
  }
  return loaded;
}
