import { Router } from 'express';

/** `GET /v1/api-key`: tells a client whether its secret key works and which project it belongs to. */
export function apiKeyRouter(): Router {
  const router = Router();
  router.get('/v1/api-key', (req, res) => {
    const project = req.project!;
    res.json({ success: true, data: { projectId: project.id, projectName: project.name, keyKind: project.keyKind } });
  });
  return router;
}
