-- m006_chunk_vector_recipe: how the stored chunk vectors of each model were made from the chunk
-- text (curate/vectors.py CHUNK_RECIPE), and which vectors wait to be made again after a change.

CREATE TABLE chunk_vector_recipes (
    model   TEXT PRIMARY KEY,
    recipe  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE chunk_vectors_stale (
    chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE
);

-- the vectors stored so far were made from the first 256 word pieces of each chunk
INSERT INTO chunk_vector_recipes (model, recipe)
    SELECT DISTINCT model, 'first-window' FROM chunk_embeddings;
