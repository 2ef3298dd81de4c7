import { Router } from 'express';
import { BODY_LIMITS, jsonBody } from '../http/middleware/body';
import type { RouteGroupDeps } from '../route-groups';
import { dashboardApiRoutes } from './api/routes';
import { signInRoutes } from './auth/routes';
import { dashboardRateLimit } from './rate-limit';
import { loadSession, requireApproved, requireCsrf, requireSession } from './session';
import { dashboardPageRoutes } from './web/page-routes';

/**
 * The account dashboard under /dashboard: the browser app's pages and assets, the sign-in
 * endpoints, and the JSON API the app calls (packages/contracts/src/dashboard.ts lists every route).
 */
export function dashboardRoutes(deps: RouteGroupDeps<'dashboard'>) {
  const router = Router();
  router.use('/dashboard/api', loadSession(deps));
  router.use('/dashboard/api/sign-in', jsonBody(BODY_LIMITS.public));
  router.use(signInRoutes(deps));
  router.use('/dashboard/api', requireSession(), requireCsrf(deps.publicBaseUrl), requireApproved(), dashboardRateLimit(deps));
  // Signed in, allowed and within the rate limit: only now is a body read.
  router.use('/dashboard/api/characters', jsonBody(BODY_LIMITS.characterPhotos));
  router.use('/dashboard/api', jsonBody(BODY_LIMITS.api));
  router.use(dashboardApiRoutes(deps));
  router.use(dashboardPageRoutes(deps));
  return router;
}
