-- vector_replace: drop a row's vectors before its new ones are inserted. Parameters: :seq.
DELETE FROM node_vectors WHERE node_seq = :seq;
