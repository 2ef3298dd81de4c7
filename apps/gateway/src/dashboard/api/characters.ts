import { Router } from 'express';
import { AppError, isUuid } from '@promptpix/core';
import type { CharacterRepository } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { createAccountCharacter, patchAccountCharacter } from '../../account-ops/characters';
import { parseOrThrow } from '../../http/validate';
import { createCharacterSchema, patchCharacterBodySchema, type CharacterView } from '@promptpix/contracts';
import { signedIn } from '../session';

type Deps = Pick<GatewayDeps, 'characters' | 'maxCharactersPerAccount' | 'storage'>;

type CharacterRow = Awaited<ReturnType<CharacterRepository['listForAccount']>>[number];

const characterView = (c: CharacterRow): CharacterView => ({
  id: c.id,
  name: c.name,
  description: c.description,
  specSheet: c.specSheet,
  behavior: c.behavior,
  lockedStyle: c.lockedStyle,
  // Stored only after validation against the same enum.
  lockedFamily: c.lockedFamily as CharacterView['lockedFamily'],
  referenceCount: c._count.references,
  createdAt: c.createdAt.toISOString(),
});

const notFound = () => new AppError('not_found', 'Character not found');

/** The account's characters: the operator API's validation and reference storage. */
export const characterRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/characters', async (_req, res) => {
      const rows = await deps.characters.listForAccount(signedIn(res).account.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ characters: rows.map(characterView) });
    })
    .post('/dashboard/api/characters', async (req, res) => {
      const input = parseOrThrow(createCharacterSchema, req.body);
      const character = await createAccountCharacter(deps, signedIn(res).account.id, input);
      res.status(201).json(characterView(character));
    })
    .patch('/dashboard/api/characters/:id', async (req, res) => {
      const input = parseOrThrow(patchCharacterBodySchema, req.body);
      if (!isUuid(req.params.id)) throw notFound();
      const character = await patchAccountCharacter(deps, signedIn(res).account.id, req.params.id, input);
      if (!character) throw notFound();
      res.json(characterView(character));
    })
    .delete('/dashboard/api/characters/:id', async (req, res) => {
      if (!isUuid(req.params.id) || !(await deps.characters.delete(signedIn(res).account.id, req.params.id))) throw notFound();
      res.status(204).end();
    });
