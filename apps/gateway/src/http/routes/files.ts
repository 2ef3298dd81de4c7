import express, { Router } from 'express';

/**
 * Image files on local disk (embedded storage). Names are content hashes, so files never change:
 * cache them for a year. express.static refuses paths that leave the root.
 */
export const fileRoutes = (root: string) =>
  Router().use('/files', express.static(root, { immutable: true, maxAge: '365d', index: false, dotfiles: 'deny', fallthrough: true, redirect: false }));
