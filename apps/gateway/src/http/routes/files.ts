import express, { Router } from 'express';

/** The folders whose files have public URLs: generated images and style previews. Uploads and character references never do. */
export const PUBLIC_FILE_FOLDERS = ['images', 'previews'] as const;

const isPublic = (path: string) => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  return PUBLIC_FILE_FOLDERS.some((folder) => decoded.startsWith(`/${folder}/`));
};

/**
 * Image files on local disk (embedded storage), the public folders only. Names are content hashes,
 * so files never change: cache them for a year. express.static refuses paths that leave the root.
 */
export const fileRoutes = (root: string) => {
  const serve = express.static(root, { immutable: true, maxAge: '365d', index: false, dotfiles: 'deny', fallthrough: true, redirect: false });
  return Router().use('/files', function servePublicFiles(req, res, next) {
    if (isPublic(req.path)) serve(req, res, next);
    else next();
  });
};
