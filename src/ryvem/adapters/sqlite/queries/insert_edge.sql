-- insert_edge: One edge row. {on_conflict} is empty or skips existing ids (copy).
INSERT INTO edges ({edge_cols_plain}) VALUES ({edge_params}){on_conflict};
