/**
 * mingo entry points with one shared, pre-built options object. mingo's default entry points copy
 * every operator table into a new context for each Query (~10 µs); handing them an existing
 * ComputeOptions instance skips that copy (ComputeOptions.init reuses an instance it is given).
 */
import { Aggregator as BaseAggregator } from 'mingo/aggregator';
import { Context } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { Query as BaseQuery } from 'mingo/query';

const FULL = Context.init({
  accumulator: accumulatorOperators as never,
  expression: expressionOperators as never,
  pipeline: pipelineOperators as never,
  projection: projectionOperators as never,
  query: queryOperators as never,
  window: windowOperators as never,
});

type OptionsCtor = { new (options: object, locals?: object): object; init(options: object): { options: object } };

// The ComputeOptions class is not exported: a query operator receives an instance of it.
let Ctor: OptionsCtor | null = null;
new BaseQuery({ x: { $captureOptions: 1 } }, {
  context: Context.init({
    query: {
      $captureOptions: (_selector: unknown, _value: unknown, options: object) => {
        Ctor = options.constructor as OptionsCtor;
        return () => true;
      },
    } as never,
  }),
});
if (!Ctor) throw new Error('mingo: could not obtain its options class');
const OptionsClass: OptionsCtor = Ctor;
const SHARED = OptionsClass.init({ context: FULL });

export function makeQuery(filter: Record<string, any>): BaseQuery {
  return new BaseQuery(filter, SHARED as never);
}

export function makeAggregator(pipeline: Record<string, any>[], collectionResolver?: (name: string) => Record<string, any>[]): BaseAggregator {
  const opts = collectionResolver ? new OptionsClass({ ...SHARED.options, collectionResolver }) : SHARED;
  return new BaseAggregator(pipeline, opts as never);
}
