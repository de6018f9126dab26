import { z } from 'zod';
import { nameField, queryBool, SEARCH_MAX } from '../../fields';
import { defineOperations } from '../operation';
import { KNOWLEDGE_WRITE_ERRORS } from './articles';

/** The public help center (docs/adr/0016): its switch, and the pages the gateway serves at `/help/{teamSlug}`. */

export const HELP_CENTER_TITLE_MAX = 100;

export const helpCenterSchema = z
  .object({
    object: z.literal('help_center'),
    /** Off by default: nothing is served at `/help/{teamSlug}` until a team turns it on. */
    enabled: z.boolean(),
    /** The page heading; null shows "Help center". */
    title: z.string().nullable(),
    updatedAt: z.string().datetime().nullable(),
    teamSlug: z.string().nullable().describe("The team's slug, which the addresses are made of (null while the platform has not learned it)."),
    url: z
      .string()
      .nullable()
      .describe(
        "Where this partition's help center is served, on the platform's own address (npm start: `http://127.0.0.1:8080`): " +
          '`/help/{teamSlug}` for the live partition, `/help/{teamSlug}?mode=test` for the test partition. It answers 404 while `enabled` is false.',
      ),
    urls: z
      .object({ live: z.string(), test: z.string() })
      .nullable()
      .describe("Both partitions' addresses (each partition has its own switch: see each one's `enabled` with a key of that partition)."),
  })
  .meta({ id: 'HelpCenter' });
export type HelpCenterView = z.output<typeof helpCenterSchema>;

export const updateHelpCenterBody = z.strictObject({
  enabled: z.boolean().optional(),
  title: nameField(HELP_CENTER_TITLE_MAX).nullable().optional(),
});
export type UpdateHelpCenterInput = z.output<typeof updateHelpCenterBody>;

/** What the gateway asks to render one help-center page (`/help/{teamSlug}…`). */
export const helpCenterPageQuery = z.strictObject({
  /** The public path the page's links start with, e.g. `/help/acme`. */
  base: z.string().regex(/^\/help\/[a-z0-9-]{1,100}$/),
  /** `/help/{teamSlug}/articles/{article}`: `art_…` optionally followed by `-` and a slug of its title. */
  article: z.string().min(1).max(300).optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  /** false for a HEAD request: the page is built but no view is counted. */
  countView: queryBool().optional(),
});
export type HelpCenterPageQuery = z.output<typeof helpCenterPageQuery>;

export const helpCenterPageSchema = z.object({
  /** The HTTP status the page is served with (404: help center off, unknown or non-public article). */
  status: z.union([z.literal(200), z.literal(404)]),
  title: z.string(),
  /** A complete, sanitised HTML document without any script. */
  html: z.string(),
});

export const HELP_CENTER = defineOperations({
  getHelpCenter: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'staff',
    method: 'GET',
    path: '/teams/{teamId}/help-center',
    summary: 'The public help center\'s settings',
    description:
      'Not shown by the spec (docs/adr/0016): whether `/help/{teamSlug}` serves this partition\'s public knowledge base without ' +
      'a key. Off until turned on. The live partition is served at `/help/{teamSlug}`, the test partition at ' +
      '`/help/{teamSlug}?mode=test`, each by its own switch: `url` is the key\'s partition\'s, `urls` both. What it shows: ' +
      'published articles with `isPublic` true in no category or a public one (categories are private until `isPublic: true`); ' +
      'each article\'s `helpCenterVisible` and `hiddenBecause` say whether it shows and why not.',
    permission: 'view_articles',
    params: { teamId: 'team' },
    success: { status: 200, data: helpCenterSchema, shape: 'envelope' },
    errors: [],
  },
  updateHelpCenter: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/help-center',
    summary: 'Turn the public help center on or off',
    description:
      '`enabled` turns it on or off for the key\'s partition (a test key: the test partition\'s, served at `url`, ' +
      '`/help/{teamSlug}?mode=test`); `title` is the page heading (null: "Help center").',
    permission: 'manage_articles',
    params: { teamId: 'team' },
    body: updateHelpCenterBody,
    success: { status: 200, data: helpCenterSchema, shape: 'envelope' },
    errors: [...KNOWLEDGE_WRITE_ERRORS],
  },
});

export const HELP_CENTER_INTERNAL = defineOperations({
  renderHelpCenterPage: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'public',
    internal: true,
    method: 'GET',
    path: '/internal/help-center/page',
    summary: 'One help-center page as sanitised HTML (home, search results or an article)',
    permission: 'view_articles',
    params: {},
    query: helpCenterPageQuery,
    success: { status: 200, data: helpCenterPageSchema, shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
});
