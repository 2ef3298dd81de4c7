export * from './storage';
export * from './job-store';
export * from './queue';
export * from './model';
export * from './coordination';
export * from './webhooks';
export * from './mailer';
export * from './meaning';
