"""Questions about data where the data lives: the plan compiled to Ibis.

`compile` runs a `Plan` on any Ibis backend (DuckDB in-process for files and
DataFrames, PostgreSQL, Spark, a warehouse) and returns the same `Result` as
pandas; `sources` opens what ``--data`` names (a path or glob of Parquet/CSV
files, a DuckDB connection and table or relation, an Ibis table, a database
URL and table); `profile` builds the planner's `Table` from pushed-down,
limited queries, cached per source. Nothing here is imported by
``import agent_nb``: Ibis and DuckDB load when a source is first used.
"""

__all__: list[str] = []
