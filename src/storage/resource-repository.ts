import { ResourceUriTaken, type ResourceInput, type ResourceRecord, type ResourceStore } from '../oauth/store.js';
import { declarationJson, storedDeclaration } from '../oauth/resources/authorization-details-schemas.js';
import { accessTokenFormatOf } from './application-repository.js';
import { Prisma, type OauthResource } from './generated/browser.js';
import type { PrismaClient } from './generated/client.js';
import { uniqueViolation } from './prisma-errors.js';
import { selectList, splitList, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_resources: looked up by URI when a request names resources, listed and shown in plain SQL; written through
// Prisma by the admin UI and the CLI.

const COLUMNS = selectList(Prisma.OauthResourceScalarFieldEnum);

/** The table's one mapper: every column is its record field as it is, but the id, the scopes and the format. */
const toResource = ({ id, scopes, tokenFormat, authorizationDetailsTypes, ...columns }: Row<OauthResource>): ResourceRecord => ({
  ...columns,
  id: Number(id),
  scopes: splitList(scopes),
  tokenFormat: accessTokenFormatOf(tokenFormat),
  authorizationDetailsTypes: storedDeclaration(authorizationDetailsTypes),
});

const toColumns = <Input extends Partial<ResourceInput>>({ scopes, authorizationDetailsTypes, ...columns }: Input) => ({
  ...columns,
  scopes: scopes?.join(' '),
  ...(authorizationDetailsTypes !== undefined && { authorizationDetailsTypes: declarationJson(authorizationDetailsTypes) }),
});

const BY_URIS = { name: 'resources_by_uris', text: `SELECT ${COLUMNS} FROM oauth_resources WHERE uri = ANY($1::varchar[])` };
const SERVED_BY = { name: 'resources_served_by', text: `SELECT ${COLUMNS} FROM oauth_resources WHERE server_client_id = $1` };

export function resourceRepository(sql: SqlClient, prisma: PrismaClient): ResourceStore {
  return {
    async findByUris(uris) {
      const usable = uris.filter((uri) => !uri.includes('\u0000'));
      if (usable.length === 0) return [];
      return (await sql.query<Row<OauthResource>>(BY_URIS, [usable])).map(toResource);
    },
    async servedBy(clientId) {
      if (clientId.includes('\u0000')) return [];
      return (await sql.query<Row<OauthResource>>(SERVED_BY, [clientId])).map(toResource);
    },
    list: async () => (await sql.query<Row<OauthResource>>(`SELECT ${COLUMNS} FROM oauth_resources ORDER BY uri`)).map(toResource),
    async findById(id) {
      const [row] = await sql.query<Row<OauthResource>>(`SELECT ${COLUMNS} FROM oauth_resources WHERE id = $1`, [id]);
      return row ? toResource(row) : null;
    },
    async create(input) {
      try {
        return toResource(await prisma.oauthResource.create({ data: toColumns(input) }));
      } catch (error) {
        if (uniqueViolation(error)) throw new ResourceUriTaken(input.uri);
        throw error;
      }
    },
    async update(id, changes) {
      try {
        const result = await prisma.oauthResource.updateMany({ where: { id: BigInt(id) }, data: toColumns(changes) });
        return result.count === 0 ? null : this.findById(id);
      } catch (error) {
        if (uniqueViolation(error) && changes.uri !== undefined) throw new ResourceUriTaken(changes.uri);
        throw error;
      }
    },
    async delete(id) {
      return (await prisma.oauthResource.deleteMany({ where: { id: BigInt(id) } })).count > 0;
    },
  };
}
