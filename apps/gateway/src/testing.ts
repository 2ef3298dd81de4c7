/** `@promptpix/gateway/testing`: a signed-in dashboard session and the mail outbox's sign-in links. Tests only. */
export * from './dashboard/testing';
export * from './dashboard/auth/outbox-reader';
