"""robot layer of naoqi_qicore."""
