import { Router } from 'express';

export const healthRoutes = (serviceName: string) =>
  Router().get('/api/health', (_req, res) => {
    res.json({ status: 'ok', service: serviceName, timestamp: new Date().toISOString() });
  });
