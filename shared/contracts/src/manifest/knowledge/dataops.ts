import { defineOperations } from '../operation';
import { bulkOperationsOf } from '../dataops/transfer';
import { searchOperationsOf, sortedQuery, VIEW_SORT_FIELDS, viewListOperation } from '../dataops/search';
import { articleSchema, listArticlesQuery } from './articles';

/** What dataops asks the knowledge service: bulk, export and import; search, tags and saved-view lists. */
const articles = bulkOperationsOf('knowledge', 'articles', 'Articles');
export const KNOWLEDGE_BULK_INTERNAL = defineOperations({
  bulkArticles: articles.bulk,
  exportArticlesPage: articles.exportPage,
  importArticleRows: articles.importRows,
});

const articlesSearch = searchOperationsOf('knowledge', 'articles');
export const listArticlesForViewQuery = listArticlesQuery.extend(sortedQuery(VIEW_SORT_FIELDS.articles));
export const KNOWLEDGE_SEARCH_INTERNAL = defineOperations({
  searchArticlesInternal: articlesSearch.search,
  listArticleTagsInternal: articlesSearch.tags,
  rewriteArticleTagInternal: articlesSearch.rewriteTag,
  listArticlesForView: viewListOperation('knowledge', 'articles', listArticlesForViewQuery, articleSchema),
});
