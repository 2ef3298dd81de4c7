/** `@promptpix/gateway`: the HTTP app and what builds it, for a process that runs it (apps/server). */
export { createApp } from './app';
export { buildGateway, SERVICE_NAME } from './build';
export { startStylePreviews, type StylePreviews } from './style-previews';
